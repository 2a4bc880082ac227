import { open, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { syncDir } from './sync-dir.js';

const LOCK_FILE = 'crateflow.lock';
// Locks this process holds. A lock naming our own pid is ours only if it is in here: in a container every start
// runs as pid 1, so a lock left by a killed earlier start names our pid too and must be taken over.
const heldHere = new Set<string>();

/** Another running process owns the data dir. */
export class DataDirInUseError extends Error {
  constructor(readonly dir: string, readonly pid: number) {
    super(`the data dir ${dir} is in use by another Crateflow process (pid ${pid}); stop it first or give this one its own storage.dir (if no Crateflow runs as pid ${pid}, delete ${join(dir, LOCK_FILE)})`);
    this.name = 'DataDirInUseError';
  }
}

/**
 * One process per data dir. Two processes appending to the same change log and rewriting the same snapshot
 * lose each other's acknowledged writes, so the dir is claimed before any file in it is read or written: a
 * lock file created exclusively (O_EXCL) holding the owner's pid. A lock left by a process that no longer runs
 * (kill -9, a power cut) is taken over.
 */
export class DataDirLock {
  private constructor(private readonly path: string) {}

  static async acquire(dir: string): Promise<DataDirLock> {
    const path = join(dir, LOCK_FILE);
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const handle = await open(path, 'wx');
        try {
          await handle.writeFile(`${process.pid}\n`);
          await handle.datasync();
        } finally {
          await handle.close();
        }
        await syncDir(dir);
        heldHere.add(path);
        return new DataDirLock(path);
      } catch (err: unknown) {
        if (!(err instanceof Error && 'code' in err && err.code === 'EEXIST')) throw err;
      }
      const owner = await readOwner(path);
      if (owner === process.pid ? heldHere.has(path) : owner !== undefined && isRunning(owner)) throw new DataDirInUseError(dir, owner ?? 0);
      // The owner is gone: take the lock over. If two starters race here, O_EXCL above lets only one win.
      await unlink(path).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
    }
    throw new Error(`could not take the lock ${path}: it keeps coming back`);
  }

  async release(): Promise<void> {
    heldHere.delete(this.path);
    await unlink(this.path).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }
}

async function readOwner(path: string): Promise<number | undefined> {
  const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return '';
    throw err;
  });
  const pid = Number.parseInt(text.trim(), 10);
  // An empty or unreadable lock is what a crash between creating and writing it leaves: nobody owns it.
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err: unknown) {
    // EPERM: the process exists but belongs to someone else, so it still holds the dir.
    return err instanceof Error && 'code' in err && err.code === 'EPERM';
  }
}
