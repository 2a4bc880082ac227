import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

export interface Entry {
  name: string;
  isDirectory: boolean;
  isFile: boolean;
}

/**
 * The entries of `dir` a music library is made of: hidden ones (`.Trash`, `._01.flac` macOS metadata) left
 * out, symbolic links followed, since libraries are often assembled from links. A dangling link is neither a
 * file nor a folder.
 */
export async function visibleEntries(dir: string): Promise<Entry[]> {
  const dirents = (await readdir(dir, { withFileTypes: true })).filter((d) => !d.name.startsWith('.'));
  return Promise.all(
    dirents.map(async (d): Promise<Entry> => {
      if (!d.isSymbolicLink()) return { name: d.name, isDirectory: d.isDirectory(), isFile: d.isFile() };
      const target = await stat(join(dir, d.name)).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT' || err.code === 'ELOOP') return undefined; // dangling or looping link: not music
        throw err;
      });
      return { name: d.name, isDirectory: target?.isDirectory() ?? false, isFile: target?.isFile() ?? false };
    }),
  );
}
