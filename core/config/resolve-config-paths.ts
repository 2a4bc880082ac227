import { isAbsolute, resolve } from 'node:path';
import type { AppConfig } from './app-config.schema.js';

/**
 * The config with the core's own folder keys made absolute against `baseDir`, the config file's folder (with no
 * config file, the current directory). Today that is `storage.dir`; the plugins' folder keys are resolved by the
 * plugin host (plugin-path-keys.ts), after their own defaults are applied.
 */
export function resolveConfigPaths(config: AppConfig, baseDir: string): AppConfig {
  const dir = config.storage.dir;
  return isAbsolute(dir) ? config : { ...config, storage: { ...config.storage, dir: resolve(baseDir, dir) } };
}
