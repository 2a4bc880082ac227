import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Imports a plugin module: a package name (built-in plugins are workspace packages, third-party ones are
 * installed next to the server) or a path, relative to the config file's folder.
 */
export async function loadPluginModule(use: string, baseDir: string): Promise<unknown> {
  const specifier = use.startsWith('.') || isAbsolute(use) ? pathToFileURL(resolve(baseDir, use)).href : use;
  const module: unknown = await import(specifier);
  return module && typeof module === 'object' && 'default' in module ? module.default : undefined;
}
