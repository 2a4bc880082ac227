import { open, readFile, truncate, type FileHandle } from 'node:fs/promises';

/** One group commit's changes: records set (with their new value) or deleted, and whole top-level values replaced. */
export interface ChangeSet {
  set?: [collection: string, key: string, value: unknown][];
  del?: [collection: string, key: string][];
  put?: [field: string, value: unknown][];
}

/**
 * An append-only file of change sets, one JSON line per group commit, flushed to disk before the commit
 * resolves. Replaying it onto the snapshot it follows gives the current state; replay is idempotent (every
 * entry carries full values), so a crash between writing a new snapshot and truncating the log is harmless.
 */
export class ChangeLog {
  private handle: FileHandle | undefined;
  private size = 0;
  private torn = false;

  constructor(readonly path: string) {}

  get bytes(): number {
    return this.size;
  }

  /** Whether the last read found a torn last line, which must be cut off before anything is appended. */
  get hasTornTail(): boolean {
    return this.torn;
  }

  /** Every complete change set in the file. A torn last line (a crash mid-append) is ignored. */
  async readAll(): Promise<ChangeSet[]> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err: unknown) {
      if (err instanceof Error && 'code' in err && err.code === 'ENOENT') return [];
      throw err;
    }
    const lines = text.split('\n');
    this.torn = (lines.pop() ?? '') !== ''; // the part after the last newline: empty, or a torn append
    return lines.map((line, i) => {
      try {
        return JSON.parse(line);
      } catch (err: unknown) {
        throw new Error(`${this.path} line ${i + 1} is not valid JSON; the change log is damaged`, { cause: err });
      }
    });
  }

  async append(changes: ChangeSet): Promise<void> {
    const line = `${JSON.stringify(changes)}\n`;
    this.handle ??= await open(this.path, 'a');
    await this.handle.write(line);
    await this.handle.datasync();
    this.size += Buffer.byteLength(line);
  }

  /** Empties the log (after a snapshot made it redundant). */
  async clear(): Promise<void> {
    await this.handle?.close();
    this.handle = undefined;
    await truncate(this.path, 0).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
    this.size = 0;
  }

  async close(): Promise<void> {
    await this.handle?.close();
    this.handle = undefined;
  }
}
