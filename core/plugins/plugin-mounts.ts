import type { PluginKind } from '@crateflow/sdk';
import { CORE_AUTH_KEYS, CORE_DOWNLOAD_KEYS, CORE_LIBRARY_KEYS, type AppConfig } from '../config/app-config.schema.js';

/** One plugin to load: where its config block sits in config.yaml, what to import, and the block itself. */
export interface PluginMount {
  /** The YAML path of the block, used in every config message (`download_client`, `plugins[1].config`). */
  configPath: string;
  use: string;
  config: unknown;
  /** The slot this plugin fills; `extra` for entries of `plugins:`. */
  slot: 'auth' | 'download-client' | 'library' | 'event-sink' | 'extra';
}

export const BUILT_IN = {
  'download-client': { blackhole: '@crateflow/download-blackhole', slskd: '@crateflow/download-slskd' },
  library: { filesystem: '@crateflow/library-filesystem', subsonic: '@crateflow/library-subsonic', jellyfin: '@crateflow/library-jellyfin' },
  auth: { basic: '@crateflow/auth-basic', proxy: '@crateflow/auth-proxy' },
} as const satisfies Partial<Record<PluginKind, Record<string, string>>>;

const WEBHOOKS_PACKAGE = '@crateflow/sink-webhooks';

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
  if (config.ui.auth.enabled) {
    const authPackage = builtIn(BUILT_IN.auth, config.ui.auth.type);
    if (authPackage) mounts.push({ configPath: 'ui.auth', use: authPackage, config: omit(config.ui.auth, CORE_AUTH_KEYS), slot: 'auth' });
  }
  mounts.push({ configPath: 'webhooks', use: WEBHOOKS_PACKAGE, config: config.webhooks, slot: 'event-sink' });
  config.plugins.forEach((entry, i) => mounts.push({ configPath: `plugins[${i}].config`, use: entry.use, config: entry.config, slot: 'extra' }));
  return mounts;
}

function omit(block: object, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(block).filter(([key]) => !keys.includes(key)));
}

/** Which plugin each slot asks for, by `type`. */
export function slotChoice(config: AppConfig): { downloadClient: string; library: string; auth: string | undefined } {
  return {
    downloadClient: config.download_client.type,
    library: config.library.type,
    auth: config.ui.auth.enabled ? config.ui.auth.type : undefined,
  };
}
