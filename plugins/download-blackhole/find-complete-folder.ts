import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { artistKey, normalizeName } from '@crateflow/sdk';

/**
 * Finds `<complete_dir>/<Artist>/<Album>` by the names as the core matches them (case, accents, "The", edition
 * suffixes ignored; the artist folder of a collaboration names its artists in any order, joined any way).
 */
export async function findCompleteFolder(completeDir: string, artist: string, album: string): Promise<string | undefined> {
  const artistDir = await findChild(completeDir, artistKey(artist), artistKey);
  if (!artistDir) return undefined;
  return findChild(artistDir, normalizeName(album), normalizeName);
}

async function findChild(parent: string, wanted: string, keyOf: (name: string) => string): Promise<string | undefined> {
  const entries = await readdir(parent, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  const match = entries.find((e) => e.isDirectory() && keyOf(e.name) === wanted);
  return match ? join(parent, match.name) : undefined;
}

/** The newest modification time and file count below `dir`, to tell whether a copy into it is still going on. */
export async function folderActivity(dir: string): Promise<{ files: number; bytes: number; newestMtimeMs: number }> {
  let files = 0;
  let bytes = 0;
  let newestMtimeMs = (await stat(dir)).mtimeMs;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const inner = await folderActivity(path);
      files += inner.files;
      bytes += inner.bytes;
      newestMtimeMs = Math.max(newestMtimeMs, inner.newestMtimeMs);
    } else if (entry.isFile()) {
      const info = await stat(path);
      files++;
      bytes += info.size;
      newestMtimeMs = Math.max(newestMtimeMs, info.mtimeMs);
    }
  }
  return { files, bytes, newestMtimeMs };
}
