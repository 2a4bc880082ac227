import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { syncDir } from '../storage/sync-dir.js';
import { PRE_SQLITE_DIR } from './old-data-files.js';

/**
 * Moves the old engine's files (`names`, in `dir`) into `<dir>/pre-sqlite/`, after their data is committed to the
 * database: kept, never deleted by the service, out of the way of anything that reads the data dir. Both folders are
 * synced, so after a power cut each file is in one place or the other, never lost; a move cut short is finished at
 * the next start. A name already taken in `pre-sqlite/` is never overwritten.
 */
export async function moveOldFiles(dir: string, names: readonly string[]): Promise<string> {
  const target = join(dir, PRE_SQLITE_DIR);
  mkdirSync(target, { recursive: true });
  await syncDir(dir);
  for (const name of names) {
    const moved = join(target, name);
    if (existsSync(moved)) {
      throw new Error(`cannot move ${join(dir, name)} to ${moved}: a file of that name is there already (it was imported earlier); move one of them away by hand, then start again`);
    }
    renameSync(join(dir, name), moved);
  }
  await syncDir(target);
  await syncDir(dir);
  return target;
}
