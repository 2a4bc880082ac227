import type { KindContracts, PluginDefinition, PluginHealth, PluginKind } from '@crateflow/sdk';
import { oneUseCompiler } from '../schema/ajv.js';
import { formatSchemaErrors, joinPath, type PathProblem } from '../schema/format-schema-errors.js';
import { checkManifest } from './check-manifest.js';
import { guardPluginCall } from './guard-plugin-call.js';
import { loadPluginModule } from './load-plugin.js';
import { createPluginContext, type PluginContextDeps } from './plugin-context-factory.js';
import { PluginNotFoundError } from './plugin-not-found-error.js';
import type { PluginMount } from './plugin-mounts.js';
import { resolvePluginPaths } from './plugin-path-keys.js';

/** The last thing known about a plugin's health, for `GET /api/v1/plugins` and `/health`. */
export interface PluginStatus {
  last_ok_at?: string;
  last_error?: string;
  last_error_at?: string;
}

interface PluginRecordBase {
  name: string;
  /** The manifest's name; differs from `name` for an instance a mount names itself (a `sources:` entry). */
  manifestName: string;
  version: string;
  configPath: string;
  status: PluginStatus;
}

/** A created plugin, discriminated by kind so `instance` has that kind's interface. */
export type LoadedPlugin = { [K in PluginKind]: PluginRecordBase & { kind: K; instance: KindContracts[K] } }[PluginKind];
export type LoadedPluginOf<K extends PluginKind> = Extract<LoadedPlugin, { kind: K }>;

const LIFECYCLE_TIMEOUT_MS = 30_000;

/** Every plugin of a running app, and the ones that fill the service's slots. */
export class LoadedPlugins {
  constructor(
    readonly all: readonly LoadedPlugin[],
    readonly downloadClient: LoadedPluginOf<'download-client'> | undefined,
    readonly library: LoadedPluginOf<'library'> | undefined,
    readonly auth: LoadedPluginOf<'auth'> | undefined,
    private readonly closers: (() => Promise<void>)[],
    /** The `previews` provider; undefined with `previews.type: none`. */
    readonly preview: LoadedPluginOf<'preview'> | undefined = undefined,
  ) {}

  get sinks(): LoadedPluginOf<'event-sink'>[] {
    return this.all.filter((p): p is LoadedPluginOf<'event-sink'> => p.kind === 'event-sink');
  }

  byName(name: string): LoadedPlugin | undefined {
    return this.all.find((p) => p.name === name);
  }

  /** Records the outcome of a call into a plugin, for the operator view. */
  noteSuccess(plugin: LoadedPlugin, at: Date): void {
    plugin.status.last_ok_at = at.toISOString();
  }

  noteFailure(plugin: LoadedPlugin, err: unknown, at: Date): void {
    plugin.status.last_error = err instanceof Error ? err.message : String(err);
    plugin.status.last_error_at = at.toISOString();
  }

  /** Calls every plugin's `start()` in order; the first failure stops startup, naming the plugin. */
  async start(): Promise<void> {
    for (const plugin of this.all) {
      const instance = plugin.instance;
      if (instance.start) await guardPluginCall(plugin.name, 'start', LIFECYCLE_TIMEOUT_MS, () => instance.start?.());
    }
  }

  /** Calls every plugin's `stop()` in reverse order; a failing stop is reported but does not prevent the others. */
  async stop(onError: (plugin: string, err: unknown) => void): Promise<void> {
    for (const plugin of [...this.all].reverse()) {
      const instance = plugin.instance;
      if (!instance.stop) continue;
      await guardPluginCall(plugin.name, 'stop', LIFECYCLE_TIMEOUT_MS, () => instance.stop?.()).catch((err: unknown) => onError(plugin.name, err));
    }
    await Promise.all(this.closers.map((close) => close()));
  }

  /** Asks every plugin that can tell for its health. */
  async health(timeoutMs: number): Promise<Map<string, PluginHealth>> {
    const result = new Map<string, PluginHealth>();
    await Promise.all(
      this.all.map(async (plugin) => {
        const instance = plugin.instance;
        if (!instance.health) return;
        const health = await guardPluginCall(plugin.name, 'health', timeoutMs, () => instance.health?.() ?? { ok: true }).catch(
          (err: unknown): PluginHealth => ({ ok: false, message: err instanceof Error ? err.message : String(err) }),
        );
        result.set(plugin.name, health);
      }),
    );
    return result;
  }
}

/** A plugin that passed every check and waits to be created. */
export interface PluginCandidate {
  mount: PluginMount;
  definition: PluginDefinition;
  config: unknown;
}

export interface SlotChoice {
  downloadClient: string;
  library: string;
  auth: string | undefined;
  /** Undefined: no previews (`previews.type: none`). */
  preview?: string | undefined;
}

/**
 * Imports, checks and validates every mounted plugin, collecting all problems (module missing, manifest,
 * api version, kind, duplicate name, config) instead of stopping at the first. `baseDir` is the config file's
 * folder: relative `use` paths and the built-in plugins' relative folders resolve against it.
 */
export async function checkPlugins(
  mounts: readonly PluginMount[],
  wanted: SlotChoice,
  baseDir: string,
): Promise<{ candidates: PluginCandidate[]; slots: Partial<Record<'download-client' | 'library' | 'auth' | 'preview', PluginCandidate>>; problems: PathProblem[] }> {
  const problems: PathProblem[] = [];
  const candidates: PluginCandidate[] = [];
  const compile = oneUseCompiler();
  for (const mount of mounts) {
    const where = mount.usePath ?? (mount.slot === 'extra' ? mount.configPath.replace(/\.config$/, '.use') : mount.configPath);
    let exported: unknown;
    try {
      exported = await loadPluginModule(mount.use, baseDir);
    } catch (err: unknown) {
      // A `use` that leads nowhere says what was tried; a module that was found but failed to load says why.
      const message = err instanceof PluginNotFoundError ? err.message : `cannot load plugin "${mount.use}": ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`;
      problems.push({ path: where, message });
      continue;
    }
    const { definition, problems: manifestProblems } = checkManifest(exported, mount.use);
    problems.push(...manifestProblems.map((message) => ({ path: where, message })));
    if (!definition) continue;
    const { name, kind } = definition.manifest;
    if (mount.slot !== 'extra' && mount.slot !== kind) {
      problems.push({ path: where, message: `plugin "${name}" is a ${kind} plugin, but this block needs a ${mount.slot} plugin` });
      continue;
    }
    const instanceName = mount.instanceName ?? name;
    if (candidates.some((c) => instanceNameOf(c) === instanceName)) {
      problems.push({ path: where, message: `a plugin named "${instanceName}" is already loaded; plugin names must be unique` });
      continue;
    }
    let validate: ReturnType<typeof compile>;
    try {
      validate = compile(definition.manifest.configSchema);
    } catch (err: unknown) {
      problems.push({ path: where, message: `plugin "${name}": manifest.configSchema is not a usable schema: ${err instanceof Error ? err.message : String(err)}` });
      continue;
    }
    const config = structuredClone(mount.config ?? {});
    if (!validate(config)) {
      problems.push(...formatSchemaErrors(validate.errors, mount.configPath).map((p) => ({ ...p, message: `${p.message} (${name})` })));
      continue;
    }
    const ruleProblems = checkPluginRules(definition, config);
    if (ruleProblems.length > 0) {
      problems.push(...ruleProblems.map((p) => ({ path: joinPath(mount.configPath, p.path), message: `${p.message} (${name})` })));
      continue;
    }
    candidates.push({ mount, definition, config: resolvePluginPaths(name, config, baseDir) });
  }
  const pick = (kind: PluginKind, slotName: string | undefined, path: string, known: readonly string[]) => {
    if (slotName === undefined) return undefined;
    const found =
      candidates.find((c) => c.mount.slot === kind) ??
      candidates.find((c) => c.mount.slot === 'extra' && c.definition.manifest.kind === kind && c.definition.manifest.name === slotName);
    if (!found && !problems.some((p) => p.path.startsWith(path))) {
      const choices = [...known.map((k) => `"${k}"`), 'or the name of a plugins: entry of that kind'].join(', ');
      problems.push({ path: `${path}.type`, message: `unknown type "${slotName}": must be one of ${choices}` });
    }
    return found;
  };
  const slots = {
    'download-client': pick('download-client', wanted.downloadClient, 'download_client', ['blackhole', 'slskd']),
    library: pick('library', wanted.library, 'library', ['filesystem', 'subsonic', 'jellyfin']),
    auth: pick('auth', wanted.auth, 'ui.auth', ['basic', 'proxy']),
    preview: pick('preview', wanted.preview, 'previews', ['deezer', 'none']),
  };
  return { candidates, slots, problems };
}

/** Creates every checked plugin with its own context. A plugin whose `create()` throws stops startup, named. */
export async function createPlugins(
  checked: Awaited<ReturnType<typeof checkPlugins>>,
  deps: PluginContextDeps,
): Promise<LoadedPlugins> {
  const loaded: LoadedPlugin[] = [];
  const closers: (() => Promise<void>)[] = [];
  const closeAll = () => Promise.all(closers.map((c) => c()));
  for (const candidate of checked.candidates) {
    const { kind, version, uses } = candidate.definition.manifest;
    const name = instanceNameOf(candidate);
    const { musicbrainz, ...shared } = deps;
    const usesMusicBrainz = musicbrainz && uses?.includes('musicbrainz');
    const { context, close } = await createPluginContext(name, candidate.config, usesMusicBrainz ? { ...shared, musicbrainz } : shared, kind);
    closers.push(close);
    let instance: unknown;
    try {
      instance = await guardPluginCall(name, 'create', LIFECYCLE_TIMEOUT_MS, () => candidate.definition.create(context));
    } catch (err: unknown) {
      await closeAll();
      throw err;
    }
    const missing = missingMembers(kind, instance);
    if (missing.length > 0) {
      await closeAll();
      throw new Error(`plugin "${name}": create() returned an object without ${missing.join(', ')} (required for a ${kind} plugin)`);
    }
    const base = { name, manifestName: candidate.definition.manifest.name, version: version ?? '0.0.0', configPath: candidate.mount.configPath, status: {} };
    // missingMembers() checked the members the kind requires; the instance is the plugin's, typed by its kind.
    loaded.push({ ...base, kind, instance } as LoadedPlugin);
  }
  const bySlot = <K extends 'download-client' | 'library' | 'auth' | 'preview'>(kind: K): LoadedPluginOf<K> | undefined => {
    const slot = checked.slots[kind];
    const name = slot && instanceNameOf(slot);
    const plugin = loaded.find((p) => p.name === name);
    return plugin && plugin.kind === kind ? (plugin as LoadedPluginOf<K>) : undefined;
  };
  return new LoadedPlugins(loaded, bySlot('download-client'), bySlot('library'), bySlot('auth'), closers, bySlot('preview'));
}

/** The name a created plugin goes by: the manifest's, or the one its mount gives it (a `sources:` entry). */
export function instanceNameOf(candidate: PluginCandidate): string {
  return candidate.mount.instanceName ?? candidate.definition.manifest.name;
}

/** The plugin's own config rules (`checkConfig`), with a plugin that throws there reported like a rule it broke. */
function checkPluginRules(definition: PluginDefinition, config: unknown): PathProblem[] {
  if (!definition.checkConfig) return [];
  try {
    return definition.checkConfig(config);
  } catch (err: unknown) {
    return [{ path: '', message: `checkConfig() failed: ${err instanceof Error ? err.message : String(err)}` }];
  }
}

const REQUIRED_MEMBERS: Record<PluginKind, string[]> = {
  auth: ['authenticate'],
  'download-client': ['request', 'status'],
  library: ['albums'],
  'event-sink': ['deliver'],
  source: ['discover'],
  preview: ['findPreviews'],
  notifier: ['send'],
};

function missingMembers(kind: PluginKind, instance: unknown): string[] {
  if (!instance || typeof instance !== 'object') return ['an object'];
  return REQUIRED_MEMBERS[kind].filter((member) => !(member in instance) || typeof Reflect.get(instance, member) !== 'function');
}
