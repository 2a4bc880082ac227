import { open, type FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { AlbumMatcher, decodeNameKey, nameKeyOf, type AlbumIdentity } from '../library/library-index.js';
import { DamagedDataError } from '../storage/damaged-data-error.js';
import { GrowableArray } from '../storage/growable-array.js';
import { HashedKeyTable } from '../storage/hashed-key-table.js';
import { IndexFile, type IndexArrays } from '../storage/index-file.js';
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

const APPROVED = 1;
const LIVE = 2;
const TAIL_BYTES = 4096;
/** Bytes of new history lines after which the index is saved again (about 10,000 decisions). */
const SAVE_EVERY_BYTES = 4 * 1024 * 1024;

interface SavedMeta {
  /** The history's length the saved index describes. */
  covered: number;
  /** CRC-32 of the bytes just before `covered`, to tell that the history there is still the one indexed. */
  tail: number;
}

/**
 * Decided queue items, out of memory: an append-only file (`queue-history.jsonl`) with one line per decision
 * (`D`) or restore (`R`), and in memory only what lookups need, in typed arrays: per decision its line offset,
 * status and id (as bytes), an id → decision table, the decisions per status (for paging newest first) and the
 * de-duplication keys as hashes. A year of decisions then costs about 60 bytes each in memory, and no strings.
 *
 * The index is saved beside the file (`queue-history.jsonl.idx`, see {@link IndexFile}) at start-up, every few
 * MB of new lines and at shutdown; a start-up loads it and reads only the lines written after it, so starting
 * costs the same at 1,000 decisions as at 100,000. A missing, torn or stale saved index only means a full read.
 *
 * Line: `D|R <TAB> id <TAB> status <TAB> mbid <TAB> name key <TAB> record JSON`. JSON never holds a raw tab or
 * newline, and the key fields are stripped of them, so the fields split safely.
 *
 * Durability is the core document's: lines are staged in memory during a mutation and flushed (written in full
 * and fdatasync'ed) just before the core document's change-log append, which records the new length
 * (`history_bytes`). Bytes past the recorded length were never acknowledged and are cut off at open.
 */
export class DecidedHistory {
  // Per decision (in line order): where its line starts, its status and whether it still stands, its id.
  private lineOffsets = new GrowableArray(Float64Array);
  private flags = new GrowableArray(Uint8Array);
  private idStarts = new GrowableArray(Float64Array);
  private idBytes = new GrowableArray(Uint8Array);
  private byId = new HashedKeyTable();
  private matcher = new AlbumMatcher();
  // Decisions that still stand, per status, in line order.
  private byStatus = { approved: new GrowableArray(Int32Array), rejected: new GrowableArray(Int32Array) };
  private staged: Buffer[] = [];
  // Lines staged or being flushed, by offset: reads of them must not go to the file before they are in it.
  private readonly unflushed = new Map<number, Buffer>();
  private durable = 0;
  private end = 0;
  private savedAt = 0;
  private saving: Promise<void> | undefined;
  private readonly saved: IndexFile<SavedMeta>;

  private constructor(readonly path: string, private readonly handle: FileHandle) {
    this.saved = new IndexFile(`${path}.idx`);
  }

  /** Opens the history at its last acknowledged length `committed` (from the core document). */
  static async open(path: string, committed: number): Promise<DecidedHistory> {
    const handle = await open(path, 'a+').then(async (h) => {
      await h.close();
      return open(path, 'r+');
    });
    const history = new DecidedHistory(path, handle);
    try {
      await history.reload(committed);
    } catch (err: unknown) {
      await handle.close();
      throw err;
    }
    return history;
  }

  /** The length the core document must record for everything staged so far to count. */
  get bytes(): number {
    return this.end;
  }

  count(status: DecidedStatus): number {
    return this.byStatus[status].length;
  }

  /** The decided item matching `album` (by mbid, else by normalised artist + album), if any. */
  find(album: AlbumIdentity): { id: string; status: DecidedStatus } | undefined {
    const decision = this.matcher.find(album);
    if (decision === undefined || !(this.flags.at(decision) & LIVE)) return undefined;
    return { id: this.idOf(decision), status: this.statusAt(decision) };
  }

  statusOf(id: string): DecidedStatus | undefined {
    const decision = this.decisionOf(id);
    return decision === undefined ? undefined : this.statusAt(decision);
  }

  async get(id: string): Promise<QueueItem | undefined> {
    const decision = this.decisionOf(id);
    return decision === undefined ? undefined : this.readItem(this.lineOffsets.at(decision));
  }

  /** Decided items with `status`, newest decision first. */
  async page(status: DecidedStatus, offset: number, limit: number): Promise<HistoryPage> {
    const list = this.byStatus[status];
    const items: QueueItem[] = [];
    for (let i = list.length - 1 - offset; i >= 0 && items.length < limit; i--) items.push(await this.readItem(this.lineOffsets.at(list.at(i))));
    return { items, total: list.length };
  }

  /** Records a decision (call inside a store mutation; it counts once the mutation commits). */
  stageDecided(item: QueueItem & { status: DecidedStatus }): void {
    const offset = this.stage('D', item.id, item.status, item, JSON.stringify(item));
    const decision = this.addDecision(item.id, item.status, offset);
    this.matcher.add(item, decision);
  }

  /** Records that a decided item went back to the pending queue. */
  stageRestored(item: QueueItem): void {
    this.stage('R', item.id, '', item, '{}');
    const decision = this.decisionOf(item.id);
    if (decision === undefined) return;
    this.withdraw(item.id, decision);
    this.matcher.remove(item, decision);
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
   * Told after each acknowledged commit, with the history length it acknowledged: when the index describes
   * exactly that (nothing staged or unacknowledged in it) and enough was added since the last save, it is saved
   * again in the background.
   */
  committed(bytes: number): void {
    if (bytes - this.savedAt < SAVE_EVERY_BYTES) return;
    this.saveIfSettled(bytes);
  }

  /**
   * Goes back to the acknowledged length `committed`: cuts off what was written past it (a crash, or a failed
   * commit whose lines were flushed), loads the saved index when it still describes the file, and reads the lines
   * after it.
   */
  async reload(committed: number): Promise<void> {
    await this.saving;
    this.staged = [];
    this.unflushed.clear();
    const size = (await this.handle.stat()).size;
    if (size < committed) throw new DamagedDataError(this.path, `holds ${size} bytes but ${committed} were acknowledged`, RECOVERY);
    if (size > committed) {
      await this.handle.truncate(committed);
      await this.handle.datasync();
    }
    const from = await this.loadSaved(committed);
    let offset = from;
    await readLineBytes(this.path, {
      start: from,
      end: committed,
      line: (bytes, number) => {
        this.indexLine(keyFieldsOf(bytes), offset, number);
        offset += bytes.length + 1;
      },
    });
    this.durable = committed;
    this.end = committed;
    this.savedAt = from;
    if (from !== committed) this.saveIfSettled(committed);
  }

  /** Closes the file, saving the index first when `committed` (the acknowledged length) is given. */
  async close(committed?: number): Promise<void> {
    if (committed !== undefined && committed !== this.savedAt) this.saveIfSettled(committed);
    await this.saving;
    await this.handle.close();
  }

  private statusAt(decision: number): DecidedStatus {
    return this.flags.at(decision) & APPROVED ? 'approved' : 'rejected';
  }

  /** The standing decision about `id`, if any (its id compared in full: the table holds hashes). */
  private decisionOf(id: string): number | undefined {
    const decision = this.byId.get(id);
    return decision !== undefined && this.idOf(decision) === id ? decision : undefined;
  }

  private idOf(decision: number): string {
    const start = this.idStarts.at(decision);
    const end = decision + 1 < this.idStarts.length ? this.idStarts.at(decision + 1) : this.idBytes.length;
    const bytes = this.idBytes.view(start, end);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  }

  private addDecision(id: string, status: DecidedStatus, offset: number): number {
    const before = this.decisionOf(id);
    if (before !== undefined) this.withdraw(id, before); // decided again without a restore line between: the last one stands
    const decision = this.lineOffsets.length;
    this.lineOffsets.push(offset);
    this.flags.push(LIVE | (status === 'approved' ? APPROVED : 0));
    this.idStarts.push(this.idBytes.length);
    this.idBytes.pushBytes(Buffer.from(id));
    this.byId.set(id, decision);
    this.byStatus[status].push(decision);
    return decision;
  }

  private withdraw(id: string, decision: number): void {
    const list = this.byStatus[this.statusAt(decision)];
    const at = list.indexOfSorted(decision);
    if (at >= 0) list.removeAt(at);
    this.flags.set(decision, this.flags.at(decision) & ~LIVE);
    this.byId.delete(id, decision);
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
      const decision = this.decisionOf(id);
      if (decision === undefined) return;
      this.withdraw(id, decision);
      this.matcher.removeKeys(mbid, name, decision);
      return;
    }
    if (status !== 'approved' && status !== 'rejected') throw new DamagedDataError(this.path, `line ${number} has an unknown status "${status}"`, RECOVERY);
    this.matcher.addKeys(mbid, name, this.addDecision(id, status, offset));
  }

  /** Loads the saved index if it describes the file up to at most `committed` bytes; answers where it ends (0: none). */
  private async loadSaved(committed: number): Promise<number> {
    this.lineOffsets = new GrowableArray(Float64Array);
    this.flags = new GrowableArray(Uint8Array);
    this.idStarts = new GrowableArray(Float64Array);
    this.idBytes = new GrowableArray(Uint8Array);
    this.byId = new HashedKeyTable();
    this.matcher = new AlbumMatcher();
    this.byStatus = { approved: new GrowableArray(Int32Array), rejected: new GrowableArray(Int32Array) };
    const saved = await this.saved.read();
    if (!saved || !Number.isSafeInteger(saved.meta.covered)) return 0;
    if (saved.meta.covered > committed) {
      // It describes lines a failed commit wrote and the truncation above removed: gone before anything new is
      // appended, so that no later start can mistake new lines for the ones it describes.
      await this.saved.remove();
      return 0;
    }
    if ((await this.tailSum(saved.meta.covered)) !== saved.meta.tail) return 0;
    const a = saved.arrays;
    const lineOffsets = a.lineOffsets, flags = a.flags, idStarts = a.idStarts, idBytes = a.idBytes, approved = a.approved, rejected = a.rejected;
    if (!(lineOffsets instanceof Float64Array) || !(flags instanceof Uint8Array) || !(idStarts instanceof Float64Array) || !(idBytes instanceof Uint8Array)) return 0;
    if (!(approved instanceof Int32Array) || !(rejected instanceof Int32Array) || flags.length !== lineOffsets.length || idStarts.length !== lineOffsets.length) return 0;
    const tables = [tableOf(a, 'id'), tableOf(a, 'mbid'), tableOf(a, 'name')];
    const [byId, byMbid, byName] = tables;
    if (!byId || !byMbid || !byName) return 0;
    this.lineOffsets = new GrowableArray(Float64Array, lineOffsets);
    this.flags = new GrowableArray(Uint8Array, flags);
    this.idStarts = new GrowableArray(Float64Array, idStarts);
    this.idBytes = new GrowableArray(Uint8Array, idBytes);
    this.byStatus = { approved: new GrowableArray(Int32Array, approved), rejected: new GrowableArray(Int32Array, rejected) };
    this.byId = byId;
    this.matcher = new AlbumMatcher({ byMbid, byName });
    return saved.meta.covered;
  }

  /** Saves the index in the background when it describes exactly the first `committed` bytes of the file. */
  private saveIfSettled(committed: number): void {
    if (this.saving || this.staged.length > 0 || this.end !== committed || this.durable !== committed) return;
    // Copied now, in one go: the arrays keep changing while the file is written.
    const tables = { id: this.byId.arrays, mbid: this.matcher.tables.byMbid.arrays, name: this.matcher.tables.byName.arrays };
    const arrays: IndexArrays = {
      lineOffsets: this.lineOffsets.copy(), flags: this.flags.copy(), idStarts: this.idStarts.copy(), idBytes: this.idBytes.copy(),
      approved: this.byStatus.approved.copy(), rejected: this.byStatus.rejected.copy(),
    };
    for (const [name, table] of Object.entries(tables)) {
      arrays[`${name}High`] = table.high.slice();
      arrays[`${name}Low`] = table.low.slice();
      arrays[`${name}Values`] = table.values.slice();
    }
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

function tableOf(arrays: IndexArrays, name: string): HashedKeyTable | undefined {
  const high = arrays[`${name}High`];
  const low = arrays[`${name}Low`];
  const values = arrays[`${name}Values`];
  if (!(high instanceof Uint32Array) || !(low instanceof Uint32Array) || !(values instanceof Int32Array)) return undefined;
  try {
    return HashedKeyTable.fromArrays({ high, low, values });
  } catch {
    return undefined;
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
