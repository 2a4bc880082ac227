import { isAbsolute, resolve } from 'node:path';

/**
 * The config keys of the built-in plugins that hold a folder, by manifest name. A relative one is relative to the
 * config file's folder, like `plugins[].use` (resolvePluginEntry), not to wherever the service was started from:
 * the same config must mean the same folders under systemd, in a container and from a shell in another folder.
 */
export const PLUGIN_PATH_KEYS: Readonly<Record<string, readonly string[]>> = {
  'download-blackhole': ['requests_dir', 'complete_dir'],
  'download-slskd': ['downloads_dir'],
  'library-filesystem': ['path'],
};

/**
 * The plugin's config (validated, so its defaults are in) with each of its folder keys made absolute against
 * `baseDir`. Applied to defaults too, so `./music` written in config.yaml and left out of it mean the same folder.
 */
export function resolvePluginPaths(manifestName: string, config: unknown, baseDir: string): unknown {
  const keys = PLUGIN_PATH_KEYS[manifestName];
  if (!keys || !config || typeof config !== 'object' || Array.isArray(config)) return config;
  const resolved: Record<string, unknown> = { ...config };
  for (const key of keys) {
    const value = resolved[key];
    if (typeof value === 'string' && !isAbsolute(value)) resolved[key] = resolve(baseDir, value);
  }
  return resolved;
}

/** The folder keys of a loaded plugin with their (absolute) values, for the start-up line that lists them. */
export function pluginPaths(manifestName: string, config: unknown): [string, string][] {
  const keys = PLUGIN_PATH_KEYS[manifestName] ?? [];
  if (!config || typeof config !== 'object') return [];
  return keys.flatMap((key): [string, string][] => {
    const value: unknown = Reflect.get(config, key);
    return typeof value === 'string' ? [[key, value]] : [];
  });
}
