import { pathToFileURL } from 'node:url';
import { PluginNotFoundError } from './plugin-not-found-error.js';
import { resolvePluginEntry } from './resolve-plugin-entry.js';

/**
 * Imports a plugin module and returns its default export. `use` is a package name, a package folder or a module
 * file (see resolvePluginEntry; paths are relative to the config file's folder). The module is imported by its
 * file URL, so its own imports, `@crateflow/sdk` included, resolve from where the plugin is installed.
 */
export async function loadPluginModule(use: string, baseDir: string): Promise<unknown> {
  const entry = await resolvePluginEntry(use, baseDir);
  if ('problem' in entry) throw new PluginNotFoundError(use, entry.problem);
  const module: unknown = await import(pathToFileURL(entry.file).href);
  return module && typeof module === 'object' && 'default' in module ? module.default : undefined;
}
