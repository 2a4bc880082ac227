import { open, type FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { DamagedDataError } from './damaged-data-error.js';
import { IndexFile, type IndexArrays } from './index-file.js';
import { readLineBytes } from './read-lines.js';
import { writeFully } from './write-fully.js';

const READ_BYTES = 8 * 1024;
/** Lines that start at most this far apart are read in one go (a page of 50 records of a few hundred bytes each). */
const SPAN_BYTES = 256 * 1024;
const TAIL_BYTES = 4096;
/** Bytes of new lines after which the index is saved again (about 10,000 records). */
const SAVE_EVERY_BYTES = 4 * 1024 * 1024;

interface SavedMeta {
  /** The file's length the saved index describes. */
  covered: number;
  /** CRC-32 of the bytes just before `covered`, to tell that the file there is still the one indexed. */
  tail: number;
}

/**
 * An append-only file of lines (`queue-history.jsonl`, `archive.jsonl`) whose durable length is the core
 * document's to say: lines are staged in memory during a store mutation, written in full and fdatasync'ed just
 * before the core document's change-log append that records the new length, and bytes past the recorded length
 * (a crash, or a commit that failed after the lines were flushed) were never acknowledged and are cut off when
 * the file is opened or the commit is rolled back.
 *
 * What lookups need is kept in memory by the subclass (its index hooks below), saved beside the file (`<file>.idx`, see
 * {@link IndexFile}) at start-up, every few MB of new lines and at shutdown; a start loads it and reads only the
 * lines written after it, so opening costs the same at 1,000 lines as at 100,000. A missing, torn or stale saved
 * index only means a full read.
 */
export abstract class AppendOnlyLines {
  private handle!: FileHandle;
  private staged: Buffer[] = [];
  // Lines staged or being flushed, by offset: reads of them must not go to the file before they are in it.
  private readonly unflushed = new Map<number, Buffer>();
  private durable = 0;
  private end = 0;
  private savedAt = 0;
  private saving: Promise<void> | undefined;
  private readonly saved: IndexFile<SavedMeta>;

  protected constructor(
    readonly path: string,
    /** What to tell the user when the file is damaged. */
    protected readonly recovery: string,
  ) {
    this.saved = new IndexFile(`${path}.idx`);
  }

  /** Forgets every line (before the index is loaded or rebuilt). */
  protected abstract resetIndex(): void;
  /** Takes the arrays of a saved index; false when they are not whole (a full read follows). */
  protected abstract adoptIndex(arrays: IndexArrays): boolean;
  /** Indexes one line of the file (bytes valid only during the call), which starts at `offset`. */
  protected abstract indexLine(bytes: Buffer, offset: number, number: number): void;
  /** The index as arrays to save, copied: the live ones keep changing while the file is written. */
  protected abstract indexArrays(): IndexArrays;

  /** Opens the file (made when missing) at its last acknowledged length `committed`, and loads the index. */
  protected async openAt(committed: number): Promise<void> {
    this.handle = await open(this.path, 'a+').then(async (h) => {
      await h.close();
      return open(this.path, 'r+');
    });
    try {
      await this.reload(committed);
    } catch (err: unknown) {
      await this.handle.close();
      throw err;
    }
  }

  /** The length the core document must record for everything staged so far to count. */
  get bytes(): number {
    return this.end;
  }

  /** Stages one line (`text` holds no newline); answers where it starts. Call inside a store mutation. */
  protected appendLine(text: string): number {
    const line = Buffer.from(`${text}\n`);
    const offset = this.end;
    this.staged.push(line);
    this.unflushed.set(offset, line);
    this.end += line.length;
    return offset;
  }

  /** Writes what was staged, in full, and flushes it. Called just before the core document's append. */
  async flush(): Promise<void> {
    if (this.staged.length === 0) return;
    const bytes = Buffer.concat(this.staged);
    const at = this.durable;
    this.staged = [];
    await writeFully(this.handle, bytes, at);
    await this.handle.datasync();
    this.durable = at + bytes.length;
    for (const offset of this.unflushed.keys()) if (offset < this.durable) this.unflushed.delete(offset);
  }

  /**
   * Told after each acknowledged commit, with the length it acknowledged: when the index describes exactly that
   * (nothing staged or unacknowledged in it) and enough was added since the last save, it is saved again in the
   * background.
   */
  committed(bytes: number): void {
    if (bytes - this.savedAt < SAVE_EVERY_BYTES) return;
    this.saveIfSettled(bytes);
  }

  /**
   * Goes back to the acknowledged length `committed` (at open, and when a failed commit is rolled back): cuts off
   * what was written past it, loads the saved index when it still describes the file, and indexes the lines after it.
   */
  async reload(committed: number): Promise<void> {
    await this.saving;
    this.staged = [];
    this.unflushed.clear();
    const size = (await this.handle.stat()).size;
    if (size < committed) throw new DamagedDataError(this.path, `holds ${size} bytes but ${committed} were acknowledged`, this.recovery);
    if (size > committed) {
      await this.handle.truncate(committed);
      await this.handle.datasync();
    }
    this.resetIndex();
    const from = await this.loadSaved(committed);
    let offset = from;
    await readLineBytes(this.path, {
      start: from,
      end: committed,
      line: (bytes, number) => {
        this.indexLine(bytes, offset, number);
        offset += bytes.length + 1;
      },
    });
    this.durable = committed;
    this.end = committed;
    this.savedAt = from;
    if (from !== committed) this.saveIfSettled(committed);
  }

  /** The line that starts at `offset` (without its newline), from memory while it is not yet in the file. */
  protected async readLine(offset: number): Promise<string> {
    const inMemory = this.unflushed.get(offset);
    if (inMemory) return inMemory.toString('utf8', 0, inMemory.length - 1);
    let size = READ_BYTES;
    for (;;) {
      const buffer = Buffer.alloc(size);
      const { bytesRead } = await this.handle.read(buffer, 0, size, offset);
      const newline = buffer.subarray(0, bytesRead).indexOf(10);
      if (newline !== -1) return buffer.toString('utf8', 0, newline);
      if (bytesRead < size) throw new DamagedDataError(this.path, `the line at byte ${offset} has no end`, this.recovery);
      size *= 4;
    }
  }

  /**
   * Every line written to the file so far, in order, with where it starts (bytes valid only during the call). Lines
   * staged but not yet flushed are not in the file yet, and not read.
   */
  protected async eachWrittenLine(visit: (bytes: Buffer, offset: number) => void): Promise<void> {
    let offset = 0;
    await readLineBytes(this.path, {
      end: this.durable,
      line: (bytes) => {
        visit(bytes, offset);
        offset += bytes.length + 1;
      },
    });
  }

  /**
   * The lines that start at `offsets`, in that order: a page's lines usually lie close together in the file, and
   * one read of the span they cover costs a fiftieth of fifty reads. Lines the span does not hold whole (or that are
   * still in memory) are read one by one.
   */
  protected async readLinesAt(offsets: readonly number[]): Promise<string[]> {
    const inFile = offsets.filter((offset) => !this.unflushed.has(offset));
    const read = new Map<number, string>();
    if (inFile.length > 1) {
      const first = Math.min(...inFile);
      const span = Math.max(...inFile) - first + READ_BYTES;
      if (span <= SPAN_BYTES + READ_BYTES) {
        const buffer = Buffer.allocUnsafe(span);
        const { bytesRead } = await this.handle.read(buffer, 0, span, first);
        for (const offset of inFile) {
          const start = offset - first;
          const newline = buffer.indexOf(10, start);
          if (newline !== -1 && newline < bytesRead) read.set(offset, buffer.toString('utf8', start, newline));
        }
      }
    }
    const lines: string[] = [];
    for (const offset of offsets) lines.push(read.get(offset) ?? (await this.readLine(offset)));
    return lines;
  }

  /** Closes the file, saving the index first when `committed` (the acknowledged length) is given. */
  async close(committed?: number): Promise<void> {
    // A save still running describes an earlier length: wait for it, then save what the file holds now.
    await this.saving;
    if (committed !== undefined && committed !== this.savedAt) this.saveIfSettled(committed);
    await this.saving;
    await this.handle.close();
  }

  /** Gives the index the saved arrays if they describe the file up to at most `committed` bytes; answers where they end (0: none). */
  private async loadSaved(committed: number): Promise<number> {
    const saved = await this.saved.read();
    if (!saved || !Number.isSafeInteger(saved.meta.covered)) return 0;
    if (saved.meta.covered > committed) {
      // It describes lines a failed commit wrote and the truncation above removed: gone before anything new is
      // appended, so that no later start can mistake new lines for the ones it describes.
      await this.saved.remove();
      return 0;
    }
    if ((await this.tailSum(saved.meta.covered)) !== saved.meta.tail) return 0;
    if (this.adoptIndex(saved.arrays)) return saved.meta.covered;
    this.resetIndex();
    return 0;
  }

  /** Saves the index in the background when it describes exactly the first `committed` bytes of the file. */
  private saveIfSettled(committed: number): void {
    if (this.saving || this.staged.length > 0 || this.end !== committed || this.durable !== committed) return;
    const arrays = this.indexArrays(); // copied now, in one go
    this.saving = (async () => {
      const tail = await this.tailSum(committed);
      await this.saved.write({ covered: committed, tail }, arrays);
      this.savedAt = committed;
    })()
      // A failed save only makes the next start read more lines; the file is removed so no stale one is trusted.
      .catch(() => this.saved.remove().catch(() => undefined))
      .finally(() => (this.saving = undefined));
  }

  /** CRC-32 of the (up to) 4 KB of the file before `at`. */
  private async tailSum(at: number): Promise<number> {
    const length = Math.min(at, TAIL_BYTES);
    const bytes = Buffer.alloc(length);
    const { bytesRead } = await this.handle.read(bytes, 0, length, at - length);
    return bytesRead === length ? crc32(bytes) : -1;
  }
}
