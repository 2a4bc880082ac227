import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Logger } from '@crateflow/sdk';
import type { AppConfig } from './app-config.schema.js';

/** The folder library's default `library.path` (plugins/library-filesystem), as `npm start` with no config uses it. */
const DEFAULT_MUSIC_FOLDER = './music';

/**
 * Creates `./music` on a first start with the default folder library, so a new user sees where albums go and the
 * dashboard does not start with "library folder missing". Only the default: a configured `library.path` that is
 * missing is more likely an unmounted disk, and creating an empty folder there would hide that. `./music` is
 * relative to `baseDir`, the config file's folder (the current directory when there is none), as the library
 * plugin reads it. Returns the absolute path it created, or undefined.
 */
export async function createDefaultMusicFolder(config: AppConfig, log: Logger, baseDir: string): Promise<string | undefined> {
  const library: Record<string, unknown> = config.library;
  if (library.type !== 'filesystem' || library.path !== undefined) return undefined;
  const folder = resolve(baseDir, DEFAULT_MUSIC_FOLDER);
  const created = await mkdir(folder, { recursive: true });
  if (created !== undefined) log.info({ path: folder }, 'created the music folder of the default folder library');
  return created === undefined ? undefined : folder;
}
