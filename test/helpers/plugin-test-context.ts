import { createHttpClient, type JsonValue, type Logger, type PluginContext, type PluginDefinition, type PluginKind, type PluginStorage, type Static, type TSchema } from '@crateflow/sdk';
import { randomUUID } from 'node:crypto';
import { compileStrict } from '../../core/schema/ajv.js';
import { formatSchemaErrors } from '../../core/schema/format-schema-errors.js';
import { ManualClock } from './manual-clock.js';

/**
 * Plugin storage held in memory. Values are copied through JSON on the way in and out, as the real store
 * persists them, so a test cannot pass state to a plugin by keeping a reference.
 */
export class MemoryPluginStorage implements PluginStorage {
  private readonly data = new Map<string, string>();

  get<T extends JsonValue = JsonValue>(key: string): T | undefined {
    const text = this.data.get(key);
    // The value is what the plugin under test stored under this key; the plugin owns its shape.
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }

  async set(key: string, value: JsonValue): Promise<void> {
    this.data.set(key, JSON.stringify(value));
  }

  async delete(key: string): Promise<void> {
    this.data.delete(key);
  }

  *entries<T extends JsonValue = JsonValue>(prefix = ''): IterableIterator<[string, T]> {
    for (const key of [...this.data.keys()]) {
      const value = this.get<T>(key);
      if (key.startsWith(prefix) && value !== undefined) yield [key, value];
    }
  }

  get size(): number {
    return this.data.size;
  }
}

export interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string;
  fields: object;
}

/** A logger that prints nothing and keeps every entry, so tests can assert on what an operator would read. */
export function recordingLogger(entries: LogEntry[] = [], bindings: object = {}): Logger {
  const at = (level: LogEntry['level']) => (first: object | string, msg?: string): void => {
    if (typeof first === 'string') entries.push({ level, msg: first, fields: bindings });
    else entries.push({ level, msg: msg ?? '', fields: { ...bindings, ...first } });
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: (more) => recordingLogger(entries, { ...bindings, ...more }) };
}

export interface PluginTestContext<C> {
  context: PluginContext<C>;
  clock: ManualClock;
  storage: MemoryPluginStorage;
  logs: LogEntry[];
  /** Aborts the context's signal and closes its HTTP client. */
  close(): Promise<void>;
}

export interface PluginTestContextOptions {
  clock?: ManualClock;
  /** Reuse a storage, e.g. to create the plugin again as after a server restart. */
  storage?: MemoryPluginStorage;
  /** Per-request deadline of the HTTP client (default 2000 ms, so an unreachable fake fails fast). */
  httpTimeoutMs?: number;
}

/**
 * A real context for calling a plugin's `create()` in a test: the raw config is validated against the plugin's
 * schema with defaults applied (as the host does), HTTP goes through the sdk client, time through a manual clock.
 *
 * @example
 * const { context, close } = createPluginTestContext(slskd, { url: fake.url, api_key: fake.apiKey, downloads_dir });
 * const client = await slskd.create(context);
 */
export function createPluginTestContext<K extends PluginKind, S extends TSchema>(
  plugin: PluginDefinition<K, S>,
  rawConfig: Record<string, unknown>,
  options: PluginTestContextOptions = {},
): PluginTestContext<Static<S>> {
  const validate = compileStrict<Static<S>>(plugin.manifest.configSchema);
  const config = structuredClone(rawConfig);
  if (!validate(config)) {
    const lines = formatSchemaErrors(validate.errors, 'config').map((p) => `${p.path}: ${p.message}`);
    throw new Error(`invalid test config for ${plugin.manifest.name}:\n  ${lines.join('\n  ')}`);
  }
  const clock = options.clock ?? new ManualClock();
  const storage = options.storage ?? new MemoryPluginStorage();
  const logs: LogEntry[] = [];
  const http = createHttpClient({ userAgent: `crateflow-test (${plugin.manifest.name})`, defaultTimeoutMs: options.httpTimeoutMs ?? 2000 });
  const abort = new AbortController();
  const context: PluginContext<Static<S>> = {
    config,
    log: recordingLogger(logs, { plugin: plugin.manifest.name }),
    http,
    storage,
    clock,
    signal: abort.signal,
    newId: () => randomUUID(),
    serverVersion: '0.0.0-test',
  };
  return {
    context,
    clock,
    storage,
    logs,
    async close() {
      abort.abort();
      await http.close();
    },
  };
}
