import type { Static, TSchema } from 'typebox';
import type { PluginContext } from './context.js';
import type { AuthProvider } from './kinds/auth.js';
import type { DownloadClient } from './kinds/download-client.js';
import type { EventSink } from './kinds/event-sink.js';
import type { LibraryBackend } from './kinds/library.js';
import type { DiscoverySource } from './kinds/source.js';
import type { PreviewProvider } from './kinds/preview.js';
import type { Notifier } from './kinds/notifier.js';

/**
 * The kinds of plugin the server knows.
 *
 * @example
 * const kind: PluginKind = 'event-sink';
 */
export type PluginKind = 'auth' | 'download-client' | 'library' | 'event-sink' | 'source' | 'preview' | 'notifier';

/**
 * Every plugin kind, for hosts and tools.
 *
 * @example
 * if (!PLUGIN_KINDS.includes(manifest.kind)) throw new Error(`unknown kind ${manifest.kind}`);
 */
export const PLUGIN_KINDS: readonly PluginKind[] = ['auth', 'download-client', 'library', 'event-sink', 'source', 'preview', 'notifier'];

/**
 * The interface `create()` must return for each kind.
 *
 * @example
 * const sink: KindContracts['event-sink'] = { deliver: async () => undefined };
 */
export interface KindContracts {
  auth: AuthProvider;
  'download-client': DownloadClient;
  library: LibraryBackend;
  'event-sink': EventSink;
  source: DiscoverySource;
  /** sdk 1.3 */
  preview: PreviewProvider;
  /** sdk 1.5 */
  notifier: Notifier;
}

/**
 * What a plugin declares about itself. The server checks all of it before calling `create()`.
 *
 * @example
 * { name: 'sink-ntfy', kind: 'event-sink', apiVersion: PLUGIN_API_VERSION, configSchema: Config }
 */
export interface PluginManifest<K extends PluginKind = PluginKind, S extends TSchema = TSchema> {
  /** Unique among loaded plugins; used in logs, errors and config messages. */
  name: string;
  kind: K;
  /** The `PLUGIN_API_VERSION` the plugin was built against. */
  apiVersion: number;
  /** A typebox schema for the plugin's config block. Give every field a `description`. */
  configSchema: S;
  /** The plugin's own version (shown in `GET /api/v1/plugins`). */
  version?: string;
  /**
   * Shared services the plugin calls through its context; only a plugin that lists one gets it. The server refuses
   * to start when one it cannot offer is listed, instead of failing on the first run (`musicbrainz` it always offers).
   */
  uses?: readonly SharedService[];
}

/**
 * A shared service the server offers plugins through their context (sdk 1.2).
 *
 * @example
 * manifest: { name: 'source-similar', kind: 'source', apiVersion: PLUGIN_API_VERSION, configSchema, uses: ['musicbrainz'] }
 */
export type SharedService = 'musicbrainz';

/**
 * A plugin: a manifest plus a factory. This is the default export of a plugin module.
 *
 * @example
 * export default definePlugin({ manifest, create: (ctx) => ({ deliver: async (event) => … }) });
 */
/**
 * A config problem found by a plugin's own `checkConfig()`: `path` is relative to the plugin's block
 * (`url`, `[1].name`), and the server prefixes where the block sits in config.yaml.
 *
 * @example
 * { path: '[1].name', message: '"ha" is already the name of [0]; names must be unique' }
 */
export interface ConfigProblem {
  path: string;
  message: string;
}

export interface PluginDefinition<K extends PluginKind = PluginKind, S extends TSchema = TSchema> {
  manifest: PluginManifest<K, S>;
  /**
   * Rules the config schema cannot express (unique names, one key requiring another). Called after the schema
   * accepted the config; what it returns is reported with every other config problem, before startup.
   */
  checkConfig?(config: Static<S>): ConfigProblem[];
  create(context: PluginContext<Static<S>>): KindContracts[K] | Promise<KindContracts[K]>;
}

/**
 * Declares a plugin with full type inference: the config type comes from `configSchema`, the return type
 * from `kind`.
 *
 * @example
 * import { definePlugin, PLUGIN_API_VERSION, Type } from '@crateflow/sdk';
 * const Config = Type.Object({ topic_url: Type.String({ format: 'uri', description: 'ntfy topic' }) },
 *   { additionalProperties: false });
 * export default definePlugin({
 *   manifest: { name: 'sink-ntfy', kind: 'event-sink', apiVersion: PLUGIN_API_VERSION, configSchema: Config },
 *   create: ({ config, http }) => ({
 *     deliver: async (event) => { await http.request({ url: config.topic_url, method: 'POST', body: event.type }); },
 *   }),
 * });
 */
export function definePlugin<K extends PluginKind, S extends TSchema>(def: PluginDefinition<K, S>): PluginDefinition<K, S> {
  return def;
}
