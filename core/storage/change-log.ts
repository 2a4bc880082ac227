import { open, stat, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DamagedDataError } from './damaged-data-error.js';
import { readLines } from './read-lines.js';
import { syncDir } from './sync-dir.js';
import { writeFully } from './write-fully.js';

/** One group commit's changes: records set (with their new value) or deleted, and whole top-level values replaced. */
export interface ChangeSet {
  set?: [collection: string, key: string, value: unknown][];
  del?: [collection: string, key: string][];
  put?: [field: string, value: unknown][];
}

/** What reading the log found besides its change sets. */
export interface LogReading {
  changes: ChangeSet[];
  /** Bytes of a last line cut short by a crash mid-append (0 when the log ends cleanly). */
  tornBytes: number;
}

/**
 * An append-only file of change sets, one JSON line per group commit, flushed to disk before the commit
 * resolves. Replaying it onto the snapshot it follows gives the current state; replay is idempotent (every
 * entry carries full values), so a crash between writing a new snapshot and truncating the log is harmless.
 *
 * An append is all or nothing: every byte is checked written and flushed, and an append that fails part-way is
 * cut off again, so the file never holds (or later glues a new line onto) a change that was refused.
 */
export class ChangeLog {
  private handle: FileHandle | undefined;
  private size = 0;
  private damagedAt: number | undefined;

  constructor(readonly path: string) {}

  get bytes(): number {
    return this.size;
  }

  /** Every complete change set in the file. A torn last line (a crash mid-append) is reported, not replayed. */
  async read(): Promise<LogReading> {
    const changes: ChangeSet[] = [];
    let tornBytes = 0;
    const found = await readLines(this.path, {
      line: (text, number) => {
        try {
          changes.push(JSON.parse(text));
        } catch (err: unknown) {
          throw new DamagedDataError(this.path, `line ${number} is not valid JSON`, 'move the .changes file away to start from the last snapshot (losing the changes since), or restore the data dir from a backup', { cause: err });
        }
      },
      torn: (bytes) => {
        tornBytes = bytes;
      },
    });
    if (!found) return { changes: [], tornBytes: 0 };
    return { changes, tornBytes };
  }

  /** Appends one change set and flushes it. On failure nothing of it stays in the file (or the log refuses more). */
  async append(changes: ChangeSet): Promise<void> {
    const line = Buffer.from(`${JSON.stringify(changes)}\n`);
    const handle = await this.open();
    if (this.damagedAt !== undefined) await this.cutBackTo(handle, this.damagedAt);
    const start = this.size;
    try {
      await writeFully(handle, line, start);
      await handle.datasync();
    } catch (err: unknown) {
      this.damagedAt = start;
      await this.cutBackTo(handle, start).catch(() => undefined); // retried before the next append; `err` is what the caller must see
      throw err;
    }
    this.size = start + line.length;
  }

  /** Empties the log (after a snapshot made it redundant), creating no file where there is none. */
  async clear(): Promise<void> {
    const handle = this.handle ?? (await open(this.path, 'r+').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    }));
    if (handle) {
      await handle.truncate(0);
      await handle.datasync();
      await handle.close(); // reopened by the next append; an idle document holds no descriptor
    }
    this.handle = undefined;
    this.size = 0;
    this.damagedAt = undefined;
  }

  async close(): Promise<void> {
    await this.handle?.close();
    this.handle = undefined;
  }

  private async cutBackTo(handle: FileHandle, size: number): Promise<void> {
    await handle.truncate(size);
    await handle.datasync();
    this.damagedAt = undefined;
  }

  private async open(): Promise<FileHandle> {
    if (this.handle) return this.handle;
    const existed = await stat(this.path).then(
      () => true,
      (err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return false;
        throw err;
      },
    );
    // Not 'a': positioned writes are needed to write the rest of a short write and to cut a failed one back.
    const handle = await open(this.path, existed ? 'r+' : 'w+');
    this.size = (await handle.stat()).size;
    if (!existed) await syncDir(dirname(this.path)); // a new file's name must survive a crash as well as its bytes
    this.handle = handle;
    return handle;
  }
}
