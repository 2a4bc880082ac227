import { open, type FileHandle } from 'node:fs/promises';
import { AlbumMatcher, decodeNameKey, nameKeyOf, type AlbumIdentity } from '../library/library-index.js';
import { DamagedDataError } from '../storage/damaged-data-error.js';
import { readLineBytes } from '../storage/read-lines.js';
import { writeFully } from '../storage/write-fully.js';
import type { QueueItem } from './queue-item.schema.js';

export type DecidedStatus = 'approved' | 'rejected';
export interface HistoryPage {
  items: QueueItem[];
  total: number;
}

const RECOVERY = 'restore the data dir from a backup; moving queue-history.jsonl away loses the decided items (they may be proposed again)';
const READ_BYTES = 8 * 1024;

/**
 * Decided queue items, out of memory: an append-only file (`queue-history.jsonl`) with one line per decision
 * (`D`) or restore (`R`), and in memory only what lookups need — id → where its line is, the line offsets per
 * status (for paging newest first) and the de-duplication keys. A year of decisions then costs a few dozen
 * bytes each in memory instead of the whole record, and start-up reads the keys at the front of each line
 * without parsing the records.
 *
 * Line: `D|R <TAB> id <TAB> status <TAB> mbid <TAB> name key <TAB> record JSON`. JSON never holds a raw tab or
 * newline, and the key fields are stripped of them, so the fields split safely.
 *
 * Durability is the core document's: lines are staged in memory during a mutation and flushed (written in full
 * and fdatasync'ed) just before the core document's change-log append, which records the new length
 * (`history_bytes`). Bytes past the recorded length were never acknowledged and are cut off at open.
 */
export class DecidedHistory {
  private readonly where = new Map<string, number>(); // id → offset * 2 + (approved ? 1 : 0)
  private readonly offsets: Record<DecidedStatus, number[]> = { approved: [], rejected: [] };
  private readonly matcher = new AlbumMatcher();
  private staged: Buffer[] = [];
  // Lines staged or being flushed, by offset: reads of them must not go to the file before they are in it.
  private readonly unflushed = new Map<number, Buffer>();
  private durable = 0;
  private end = 0;

  private constructor(readonly path: string, private readonly handle: FileHandle) {}

  /** Opens the history at its last acknowledged length `committed` (from the core document). */
  static async open(path: string, committed: number): Promise<DecidedHistory> {
    const handle = await open(path, 'a+').then(async (h) => {
      await h.close();
      return open(path, 'r+');
    });
    const history = new DecidedHistory(path, handle);
    await history.reload(committed);
    return history;
  }

  /** The length the core document must record for everything staged so far to count. */
  get bytes(): number {
    return this.end;
  }

  count(status: DecidedStatus): number {
    return this.offsets[status].length;
  }

  /** The decided item matching `album` (by mbid, else by normalised artist + album), if any. */
  find(album: AlbumIdentity): { id: string; status: DecidedStatus } | undefined {
    const id = this.matcher.find(album);
    const status = id === undefined ? undefined : this.statusOf(id);
    return id === undefined || status === undefined ? undefined : { id, status };
  }

  statusOf(id: string): DecidedStatus | undefined {
    const where = this.where.get(id);
    return where === undefined ? undefined : where % 2 === 1 ? 'approved' : 'rejected';
  }

  async get(id: string): Promise<QueueItem | undefined> {
    const where = this.where.get(id);
    return where === undefined ? undefined : this.readItem(Math.floor(where / 2));
  }

  /** Decided items with `status`, newest decision first. */
  async page(status: DecidedStatus, offset: number, limit: number): Promise<HistoryPage> {
    const list = this.offsets[status];
    const items: QueueItem[] = [];
    for (let i = list.length - 1 - offset; i >= 0 && items.length < limit; i--) items.push(await this.readItem(list[i] ?? 0));
    return { items, total: list.length };
  }

  /** Records a decision (call inside a store mutation; it counts once the mutation commits). */
  stageDecided(item: QueueItem & { status: DecidedStatus }): void {
    const offset = this.stage('D', item.id, item.status, item, JSON.stringify(item));
    this.index(item, offset, item.status);
  }

  /** Records that a decided item went back to the pending queue. */
  stageRestored(item: QueueItem): void {
    this.stage('R', item.id, '', item, '{}');
    this.unindex(item);
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
   * Goes back to the acknowledged length `committed`: cuts off what was written past it (a crash, or a failed
   * commit whose lines were flushed) and rebuilds the index from the file.
   */
  async reload(committed: number): Promise<void> {
    this.staged = [];
    this.unflushed.clear();
    const size = (await this.handle.stat()).size;
    if (size < committed) throw new DamagedDataError(this.path, `holds ${size} bytes but ${committed} were acknowledged`, RECOVERY);
    if (size > committed) {
      await this.handle.truncate(committed);
      await this.handle.datasync();
    }
    this.where.clear();
    this.offsets.approved = [];
    this.offsets.rejected = [];
    this.matcher.clear();
    let offset = 0;
    await readLineBytes(this.path, {
      line: (bytes, number) => {
        this.indexLine(keyFieldsOf(bytes), offset, number);
        offset += bytes.length + 1;
      },
    });
    // A restored item's decision line stays in the file: only lines its id still points at are listed.
    const current = new Set(this.where.values());
    for (const status of ['approved', 'rejected'] as const) {
      this.offsets[status] = this.offsets[status].filter((at) => current.has(at * 2) || current.has(at * 2 + 1));
    }
    this.durable = committed;
    this.end = committed;
  }

  async close(): Promise<void> {
    await this.handle.close();
  }

  private stage(kind: 'D' | 'R', id: string, status: string, album: AlbumIdentity, json: string): number {
    const line = Buffer.from(`${kind}\t${id}\t${status}\t${clean(album.mbid?.toLowerCase())}\t${clean(nameKeyOf(album))}\t${json}\n`);
    const offset = this.end;
    this.staged.push(line);
    this.unflushed.set(offset, line);
    this.end += line.length;
    return offset;
  }

  private indexLine(fields: string[], offset: number, number: number): void {
    const [kind, id, status, mbid, name] = fields;
    if (fields.length < 5 || !id || (kind !== 'D' && kind !== 'R')) throw new DamagedDataError(this.path, `line ${number} is not a history line`, RECOVERY);
    if (kind === 'R') {
      this.where.delete(id);
      this.matcher.removeKeys(mbid, name, id);
      return;
    }
    if (status !== 'approved' && status !== 'rejected') throw new DamagedDataError(this.path, `line ${number} has an unknown status "${status}"`, RECOVERY);
    this.where.set(id, offset * 2 + (status === 'approved' ? 1 : 0));
    this.offsets[status].push(offset);
    this.matcher.addKeys(mbid, name, id);
  }

  private index(item: QueueItem, offset: number, status: DecidedStatus): void {
    this.where.set(item.id, offset * 2 + (status === 'approved' ? 1 : 0));
    this.offsets[status].push(offset);
    this.matcher.add(item, item.id);
  }

  private unindex(item: QueueItem): void {
    const where = this.where.get(item.id);
    if (where === undefined) return;
    this.where.delete(item.id);
    const list = this.offsets[where % 2 === 1 ? 'approved' : 'rejected'];
    const at = binarySearch(list, Math.floor(where / 2));
    if (at >= 0) list.splice(at, 1);
    this.matcher.remove(item, item.id);
  }

  private async readItem(offset: number): Promise<QueueItem> {
    const inMemory = this.unflushed.get(offset);
    if (inMemory) return parseRecord(inMemory.subarray(0, inMemory.length - 1).toString('utf8'), this.path);
    let size = READ_BYTES;
    for (;;) {
      const buffer = Buffer.alloc(size);
      const { bytesRead } = await this.handle.read(buffer, 0, size, offset);
      const newline = buffer.subarray(0, bytesRead).indexOf(10);
      if (newline !== -1) {
        return parseRecord(buffer.subarray(0, newline).toString('utf8'), this.path);
      }
      if (bytesRead < size) throw new DamagedDataError(this.path, `the line at byte ${offset} has no end`, RECOVERY);
      size *= 4;
    }
  }
}

/** The record of a history line (the JSON after its five key fields). */
function parseRecord(line: string, path: string): QueueItem {
  let record: unknown;
  try {
    record = JSON.parse(line.slice(nthTab(line, 5) + 1));
  } catch {
    record = undefined;
  }
  if (!isQueueItemRecord(record)) throw new DamagedDataError(path, `a line does not hold a queue item: ${line.slice(0, 80)}`, RECOVERY);
  return record;
}

/**
 * What every reader of a decided item relies on. Each record was a checked queue item when it was decided, so a
 * line without these was damaged on disk; the rest of the fields are not re-checked on every page read.
 */
function isQueueItemRecord(value: unknown): value is QueueItem {
  if (typeof value !== 'object' || value === null) return false;
  return ['id', 'artist', 'status', 'added_at'].every((field) => typeof Reflect.get(value, field) === 'string');
}

/**
 * The five key fields in front of a history line, each decoded on its own: they are all the index keeps, and
 * slices of the decoded line would keep every record's JSON in memory with them.
 */
function keyFieldsOf(line: Buffer): string[] {
  const fields: string[] = [];
  let start = 0;
  while (fields.length < 5) {
    const tab = line.indexOf(9, start);
    if (tab === -1) break;
    // The fifth field is the name key, which lines of earlier versions hold with another separator.
    fields.push(fields.length === 4 ? decodeNameKey(line, start, tab) : line.toString('utf8', start, tab));
    start = tab + 1;
  }
  return fields;
}

function clean(text: string | undefined): string {
  return text ? text.replace(/[\t\r\n]/g, ' ') : '';
}

function nthTab(text: string, n: number): number {
  let at = -1;
  for (let i = 0; i < n; i++) at = text.indexOf('\t', at + 1);
  return at;
}

function binarySearch(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const at = sorted[mid] ?? 0;
    if (at === value) return mid;
    if (at < value) low = mid + 1;
    else high = mid - 1;
  }
  return -1;
}
