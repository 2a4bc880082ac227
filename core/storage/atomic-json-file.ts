import { open, readFile, rename, unlink } from 'node:fs/promises';
import type { Adapter } from 'lowdb';

/**
 * A lowdb adapter that never leaves a half-written file: it writes a temp file next to the target, flushes it
 * to disk, then renames it over the target (rename is atomic on POSIX file systems). A crash at any moment
 * leaves either the old or the new complete file. There is one temp name per file, so temp files cannot pile up,
 * and a leftover one is removed at the next start.
 */
export class AtomicJsonFile<T> implements Adapter<T> {
  private readonly tempPath: string;

  constructor(private readonly path: string) {
    this.tempPath = `${path}.tmp`;
  }

  /** The file's content, or null when it does not exist. Removes a leftover temp file unless told to keep it. */
  async read(options: { keepTemp?: boolean } = {}): Promise<T | null> {
    if (!options.keepTemp) {
      await unlink(this.tempPath).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
    }
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err: unknown) {
      if (err instanceof Error && 'code' in err && err.code === 'ENOENT') return null;
      throw err;
    }
    try {
      return JSON.parse(text);
    } catch (err: unknown) {
      throw new Error(`${this.path} is not valid JSON; restore it from a backup or move it away`, { cause: err });
    }
  }

  async write(data: T): Promise<void> {
    await this.writeText(JSON.stringify(data));
  }

  /** Replaces the file with `text`, already serialised (the caller fixed the moment the data was taken). */
  async writeText(text: string): Promise<void> {
    const handle = await open(this.tempPath, 'w');
    try {
      await handle.writeFile(text, 'utf8');
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await rename(this.tempPath, this.path);
  }
}
