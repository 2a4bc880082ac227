import { AlbumMatcher, isCurrentNameKey, NAME_TABLE, nameKeyOf, type AlbumIdentity } from '../library/library-index.js';
import { cleanKeyField, keyFieldsOf } from '../library/match-key-fields.js';
import { AppendOnlyLines } from '../storage/append-only-lines.js';
import { DamagedDataError } from '../storage/damaged-data-error.js';
import { GrowableArray } from '../storage/growable-array.js';
import { loadTable, saveTable } from '../storage/hashed-key-table.js';
import type { IndexArrays } from '../storage/index-file.js';
import { LineIds } from '../storage/line-ids.js';
import { nthTab } from '../storage/nth-tab.js';
import type { QueueItem } from './queue-item.schema.js';

export type DecidedStatus = 'approved' | 'rejected';
export interface HistoryPage {
  items: QueueItem[];
  total: number;
}

const RECOVERY = 'restore the data dir from a backup; moving queue-history.jsonl away loses the decided items (they may be proposed again)';

const APPROVED = 1;
const LIVE = 2;

/**
 * Decided queue items, out of memory: an append-only file (`queue-history.jsonl`, kept durable with the core
 * document as {@link AppendOnlyLines} describes) with one line per decision (`D`) or restore (`R`), and in memory
 * only what lookups need, in typed arrays: per decision its line offset, status and id (as bytes), an id →
 * decision table, the decisions per status (for paging newest first) and the de-duplication keys as hashes. A
 * year of decisions then costs about 60 bytes each in memory, and no strings.
 *
 * Line: `D|R <TAB> id <TAB> status <TAB> mbid <TAB> name key <TAB> record JSON`. JSON never holds a raw tab or
 * newline, and the key fields are stripped of them, so the fields split safely.
 */
export class DecidedHistory extends AppendOnlyLines {
  // Per decision (in line order): where its line starts, its status and whether it still stands, its id.
  private lineOffsets = new GrowableArray(Float64Array);
  private flags = new GrowableArray(Uint8Array);
  private ids = new LineIds();
  private matcher = new AlbumMatcher();
  // Decisions that still stand, per status, in line order.
  private byStatus = { approved: new GrowableArray(Int32Array), rejected: new GrowableArray(Int32Array) };

  private constructor(path: string) {
    super(path, RECOVERY);
  }

  /** Opens the history at its last acknowledged length `committed` (from the core document). */
  static async open(path: string, committed: number): Promise<DecidedHistory> {
    const history = new DecidedHistory(path);
    await history.openAt(committed);
    return history;
  }

  count(status: DecidedStatus): number {
    return this.byStatus[status].length;
  }

  /** The decided item matching `album` (by mbid, else by normalised artist + album), if any. */
  find(album: AlbumIdentity): { id: string; status: DecidedStatus } | undefined {
    const decision = this.matcher.find(album);
    if (decision === undefined || !(this.flags.at(decision) & LIVE)) return undefined;
    return { id: this.ids.idOf(decision), status: this.statusAt(decision) };
  }

  statusOf(id: string): DecidedStatus | undefined {
    const decision = this.ids.entryOf(id);
    return decision === undefined ? undefined : this.statusAt(decision);
  }

  async get(id: string): Promise<QueueItem | undefined> {
    const decision = this.ids.entryOf(id);
    return decision === undefined ? undefined : this.readItem(this.lineOffsets.at(decision));
  }

  /** Decided items with `status`, newest decision first. */
  async page(status: DecidedStatus, offset: number, limit: number): Promise<HistoryPage> {
    const list = this.byStatus[status];
    const offsets: number[] = [];
    for (let i = list.length - 1 - offset; i >= 0 && offsets.length < limit; i--) offsets.push(this.lineOffsets.at(list.at(i)));
    const total = list.length; // before the read, during which a decision may be made or withdrawn
    return { items: (await this.readLinesAt(offsets)).map((line) => parseRecord(line, this.path)), total };
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
    const decision = this.ids.entryOf(item.id);
    if (decision === undefined) return;
    this.withdraw(item.id, decision);
    this.matcher.remove(item, decision);
  }

  protected resetIndex(): void {
    this.lineOffsets = new GrowableArray(Float64Array);
    this.flags = new GrowableArray(Uint8Array);
    this.ids = new LineIds();
    this.matcher = new AlbumMatcher();
    this.byStatus = { approved: new GrowableArray(Int32Array), rejected: new GrowableArray(Int32Array) };
  }

  protected adoptIndex(a: IndexArrays): boolean {
    const lineOffsets = a.lineOffsets, flags = a.flags, approved = a.approved, rejected = a.rejected;
    if (!(lineOffsets instanceof Float64Array) || !(flags instanceof Uint8Array) || flags.length !== lineOffsets.length) return false;
    if (!(approved instanceof Int32Array) || !(rejected instanceof Int32Array)) return false;
    const [ids, byMbid, byName] = [LineIds.load(a, lineOffsets.length), loadTable(a, 'mbid'), loadTable(a, NAME_TABLE)];
    if (!ids || !byMbid || !byName) return false;
    this.lineOffsets = new GrowableArray(Float64Array, lineOffsets);
    this.flags = new GrowableArray(Uint8Array, flags);
    this.ids = ids;
    this.byStatus = { approved: new GrowableArray(Int32Array, approved), rejected: new GrowableArray(Int32Array, rejected) };
    this.matcher = new AlbumMatcher({ byMbid, byName });
    return true;
  }

  protected indexLine(bytes: Buffer, offset: number, number: number): void {
    const fields = keyFieldsOf(bytes, 5);
    const [kind, id, status, mbid, name = ''] = fields;
    if (fields.length < 5 || !id || (kind !== 'D' && kind !== 'R')) throw new DamagedDataError(this.path, `line ${number} is not a history line`, RECOVERY);
    if (kind === 'R') {
      const decision = this.ids.entryOf(id);
      if (decision === undefined) return;
      this.withdraw(id, decision);
      // A restore line of an earlier version holds the decision's key by earlier rules and no record to make it
      // again: the key made from the decision's record stays, pointing at a decision that no longer stands, which
      // `find` answers as not found, as it would a removed key.
      this.matcher.removeKeys(mbid, isCurrentNameKey(name) ? name : undefined, decision);
      return;
    }
    if (status !== 'approved' && status !== 'rejected') throw new DamagedDataError(this.path, `line ${number} has an unknown status "${status}"`, RECOVERY);
    // A key written by an earlier version is made again from the record (read only for such lines).
    const key = isCurrentNameKey(name) ? name : nameKeyOf(parseRecord(bytes.toString('utf8'), this.path));
    this.matcher.addKeys(mbid, key, this.addDecision(id, status, offset));
  }

  protected indexArrays(): IndexArrays {
    const arrays: IndexArrays = {
      lineOffsets: this.lineOffsets.copy(), flags: this.flags.copy(), approved: this.byStatus.approved.copy(), rejected: this.byStatus.rejected.copy(),
    };
    this.ids.save(arrays);
    saveTable(arrays, 'mbid', this.matcher.tables.byMbid);
    saveTable(arrays, NAME_TABLE, this.matcher.tables.byName);
    return arrays;
  }

  private statusAt(decision: number): DecidedStatus {
    return this.flags.at(decision) & APPROVED ? 'approved' : 'rejected';
  }

  private addDecision(id: string, status: DecidedStatus, offset: number): number {
    const before = this.ids.entryOf(id);
    if (before !== undefined) this.withdraw(id, before); // decided again without a restore line between: the last one stands
    const decision = this.lineOffsets.length;
    this.lineOffsets.push(offset);
    this.flags.push(LIVE | (status === 'approved' ? APPROVED : 0));
    this.ids.push(id);
    this.byStatus[status].push(decision);
    return decision;
  }

  private withdraw(id: string, decision: number): void {
    const list = this.byStatus[this.statusAt(decision)];
    const at = list.indexOfSorted(decision);
    if (at >= 0) list.removeAt(at);
    this.flags.set(decision, this.flags.at(decision) & ~LIVE);
    this.ids.forget(id, decision);
  }

  private stage(kind: 'D' | 'R', id: string, status: string, album: AlbumIdentity, json: string): number {
    return this.appendLine(`${kind}\t${id}\t${status}\t${cleanKeyField(album.mbid?.toLowerCase())}\t${cleanKeyField(nameKeyOf(album))}\t${json}`);
  }

  private async readItem(offset: number): Promise<QueueItem> {
    return parseRecord(await this.readLine(offset), this.path);
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
