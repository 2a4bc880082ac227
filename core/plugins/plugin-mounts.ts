import type { PluginKind } from '@crateflow/sdk';
import { CORE_AUTH_KEYS, CORE_DOWNLOAD_KEYS, CORE_LIBRARY_KEYS, CORE_PREVIEW_KEYS, type AppConfig } from '../config/app-config.schema.js';
import { CORE_SOURCE_KEYS } from '../config/source-entry.schema.js';
import { CORE_NOTIFICATION_KEYS } from '../config/notification-entry.schema.js';

/** One plugin to load: where its config block sits in config.yaml, what to import, and the block itself. */
export interface PluginMount {
  /** The YAML path of the block, used in every config message (`download_client`, `plugins[1].config`). */
  configPath: string;
  use: string;
  config: unknown;
  /** The slot this plugin fills; `extra` for entries of `plugins:`. */
  slot: 'auth' | 'download-client' | 'library' | 'event-sink' | 'source' | 'preview' | 'notifier' | 'extra';
  /**
   * The name the loaded instance goes by (logs, storage, `GET /api/v1/plugins`) when it is not the manifest's:
   * each `sources:` entry is its own instance, so one plugin can serve several entries.
   */
  instanceName?: string;
  /** Where a plugin that cannot be loaded is reported, when not at `configPath` (`sources[0].use`). */
  usePath?: string;
}

export const BUILT_IN = {
  'download-client': { blackhole: '@crateflow/download-blackhole', slskd: '@crateflow/download-slskd' },
  library: { filesystem: '@crateflow/library-filesystem', subsonic: '@crateflow/library-subsonic', jellyfin: '@crateflow/library-jellyfin' },
  auth: { basic: '@crateflow/auth-basic', proxy: '@crateflow/auth-proxy' },
  source: {
    'listenbrainz-recommendations': '@crateflow/source-listenbrainz-recommendations',
    'similar-artists': '@crateflow/source-similar-artists',
    'new-releases': '@crateflow/source-new-releases',
  },
  preview: { deezer: '@crateflow/preview-deezer' },
  notifier: { ntfy: '@crateflow/notify-ntfy', telegram: '@crateflow/notify-telegram' },
} as const satisfies Partial<Record<PluginKind, Record<string, string>>>;

const WEBHOOKS_PACKAGE = '@crateflow/sink-webhooks';
export const PREVIEWS_OFF = 'none';

/**
 * Lists the plugins a config asks for. A `type` that is not built in names a plugin from `plugins:`, which
 * the host matches by manifest name once it is loaded.
 */
export function planPluginMounts(config: AppConfig): PluginMount[] {
  const mounts: PluginMount[] = [];
  const builtIn = (table: Record<string, string>, type: string) => (Object.hasOwn(table, type) ? table[type] : undefined);

  const downloadPackage = builtIn(BUILT_IN['download-client'], config.download_client.type);
  if (downloadPackage) {
    mounts.push({ configPath: 'download_client', use: downloadPackage, config: omit(config.download_client, CORE_DOWNLOAD_KEYS), slot: 'download-client' });
  }
  const libraryPackage = builtIn(BUILT_IN.library, config.library.type);
  if (libraryPackage) {
    mounts.push({ configPath: 'library', use: libraryPackage, config: omit(config.library, CORE_LIBRARY_KEYS), slot: 'library' });
  }
  const previewPackage = builtIn(BUILT_IN.preview, config.previews.type);
  if (previewPackage) {
    mounts.push({ configPath: 'previews', use: previewPackage, config: omit(config.previews, CORE_PREVIEW_KEYS), slot: 'preview' });
  }
  if (config.ui.auth.enabled) {
    const authPackage = builtIn(BUILT_IN.auth, config.ui.auth.type);
    if (authPackage) mounts.push({ configPath: 'ui.auth', use: authPackage, config: omit(config.ui.auth, CORE_AUTH_KEYS), slot: 'auth' });
  }
  mounts.push({ configPath: 'webhooks', use: WEBHOOKS_PACKAGE, config: config.webhooks, slot: 'event-sink' });
  config.plugins.forEach((entry, i) => mounts.push({ configPath: `plugins[${i}].config`, use: entry.use, config: entry.config, slot: 'extra' }));
  // An entry with neither or both of type and use, or an unknown type, is reported by checkNamedEntries().
  mounts.push(...namedEntryMounts(config.sources, 'sources', BUILT_IN.source, CORE_SOURCE_KEYS, 'source', sourceInstanceName));
  mounts.push(...namedEntryMounts(config.notifications, 'notifications', BUILT_IN.notifier, CORE_NOTIFICATION_KEYS, 'notifier', notifierInstanceName));
  return mounts;
}

/** An entry of a list whose every entry is its own plugin instance (`sources:`, `notifications:`). */
interface NamedEntry {
  name: string;
  type?: string;
  use?: string;
}

/** The mounts of such a list: a built-in by `type` or a plugin by `use`, each its own instance named after the entry. */
function namedEntryMounts(
  entries: readonly NamedEntry[],
  listPath: string,
  builtIns: Record<string, string>,
  coreKeys: readonly string[],
  slot: 'source' | 'notifier',
  instanceName: (name: string) => string,
): PluginMount[] {
  return entries.flatMap((entry, i): PluginMount[] => {
    const use = entry.use ?? (entry.type === undefined || !Object.hasOwn(builtIns, entry.type) ? undefined : builtIns[entry.type]);
    if (use === undefined || (entry.use !== undefined && entry.type !== undefined)) return [];
    return [{
      configPath: `${listPath}[${i}]`,
      usePath: `${listPath}[${i}].${entry.use === undefined ? 'type' : 'use'}`,
      use,
      config: omit(entry, coreKeys),
      slot,
      instanceName: instanceName(entry.name),
    }];
  });
}

/** The plugin instance behind a `notifications:` entry. */
export function notifierInstanceName(channel: string): string {
  return `notify-${channel}`;
}

/** The plugin instance behind a `sources:` entry: its storage document is `plugin-source-<name>`. */
export function sourceInstanceName(sourceName: string): string {
  return `source-${sourceName}`;
}

function omit(block: object, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(block).filter(([key]) => !keys.includes(key)));
}

/** Which plugin each slot asks for, by `type`. */
export function slotChoice(config: AppConfig): { downloadClient: string; library: string; auth: string | undefined; preview: string | undefined } {
  return {
    downloadClient: config.download_client.type,
    library: config.library.type,
    auth: config.ui.auth.enabled ? config.ui.auth.type : undefined,
    // `none`: no previews, and nothing that could call out for them.
    preview: config.previews.type === PREVIEWS_OFF ? undefined : config.previews.type,
  };
}
