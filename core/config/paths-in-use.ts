import { pluginPaths } from '../plugins/plugin-path-keys.js';
import type { PluginCandidate } from '../plugins/plugin-host.js';

/**
 * Every folder a start uses, by config key, all absolute: the data dir and the plugins' folders (library, download
 * folders). Printed at start, so a relative path that resolved somewhere unexpected is seen at once.
 */
export function pathsInUse(dataDir: string, candidates: readonly PluginCandidate[]): Record<string, string> {
  const paths: Record<string, string> = { 'storage.dir': dataDir };
  for (const candidate of candidates) {
    for (const [key, path] of pluginPaths(candidate.definition.manifest.name, candidate.config)) paths[`${candidate.mount.configPath}.${key}`] = path;
  }
  return paths;
}
