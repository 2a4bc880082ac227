import { AlbumMatcher, isCurrentNameKey, NAME_TABLE, nameKeyOf, type AlbumIdentity } from '../library/library-index.js';
import { cleanKeyField, keyFieldsOf } from '../library/match-key-fields.js';
import { AppendOnlyLines } from '../storage/append-only-lines.js';
import { DamagedDataError } from '../storage/damaged-data-error.js';
import { GrowableArray } from '../storage/growable-array.js';
import { loadTable, saveTable } from '../storage/hashed-key-table.js';
import type { IndexArrays } from '../storage/index-file.js';
import { LineIds } from '../storage/line-ids.js';
import { nthTab } from '../storage/nth-tab.js';
import { PositionMarks } from '../storage/position-marks.js';
import type { DeepReadonly } from '../storage/track-changes.js';
import type { WishlistItem } from './wishlist-item.schema.js';

const RECOVERY = 'restore the data dir from a backup; moving wishlist-waiting.jsonl away loses the wishlist items not yet handed to the download client';
const KEY_FIELDS = 4;
const WAITING = 1;

/**
 * Wishlist items that wait for their first download, out of memory. Approving a year of candidates can put tens of
 * thousands of albums on the wishlist at once, far more than the download client takes at a time: held as records
 * in the core document, 45,000 of them doubled the start-up time and took 40 MiB. They wait here instead, in an
 * append-only file (`wishlist-waiting.jsonl`, durable with the core document as {@link AppendOnlyLines} describes),
 * and move into the core document, in the same commit, when the download client is given them; removing one (or a
 * library sync finding it owned) ends its wait likewise. An item never comes back: from its first download on it
 * is a record of the core document.
 *
 * In memory, per item: its line's offset, whether it still waits, its id as bytes, and its id and de-duplication
 * keys as hashes (about 100 bytes, no strings; 4 MB saved beside the file for 45,000 items). Its record is read
 * from disk only when a page, the hand-off or a library sync needs it. Like the decided history, the file only
 * grows (a W and an L line, about 0.4 KB, per item that passed through).
 *
 * Lines: `W <TAB> id <TAB> mbid <TAB> name key <TAB> record JSON` when an item starts waiting, and
 * `L <TAB> id <TAB> mbid <TAB> name key <TAB> {}` when it stops (the keys, so a start that reads the file knows
 * what to forget without the record).
 */
export class WaitingWishlist extends AppendOnlyLines {
  // Per W line, in file order: where it starts, whether its item still waits, its id.
  private lineOffsets = new GrowableArray(Float64Array);
  private flags = new GrowableArray(Uint8Array);
  private ids = new LineIds();
  /** The W lines whose items still wait, for paging without a walk. */
  private waiting = new PositionMarks();
  private matcher = new AlbumMatcher();

  private constructor(path: string) {
    super(path, RECOVERY);
  }

  /** Opens the file at its last acknowledged length `committed` (from the core document). */
  static async open(path: string, committed: number): Promise<WaitingWishlist> {
    const file = new WaitingWishlist(path);
    await file.openAt(committed);
    return file;
  }

  /** How many items wait. */
  get count(): number {
    return this.waiting.total;
  }

  has(id: string): boolean {
    return this.ids.entryOf(id) !== undefined;
  }

  /** The id of the waiting item matching `album` (by mbid, else by normalised artist + album), if any. */
  find(album: AlbumIdentity): string | undefined {
    const entry = this.matcher.find(album);
    return entry !== undefined && this.flags.at(entry) & WAITING ? this.ids.idOf(entry) : undefined;
  }

  async get(id: string): Promise<WishlistItem | undefined> {
    const entry = this.ids.entryOf(id);
    return entry === undefined ? undefined : this.readItem(entry);
  }

  /** Waiting items from `offset`, at most `limit`, the most recently added first. */
  async page(offset: number, limit: number): Promise<WishlistItem[]> {
    const entries: number[] = [];
    for (let k = this.waiting.total - 1 - offset; k >= 0 && entries.length < limit; k--) entries.push(this.waiting.nth(k));
    return this.readItems(entries);
  }

  /** The `limit` items that have waited longest, oldest first. */
  async oldest(limit: number): Promise<WishlistItem[]> {
    const entries: number[] = [];
    for (let k = 0; k < this.waiting.total && entries.length < limit; k++) entries.push(this.waiting.nth(k));
    return this.readItems(entries);
  }

  /**
   * Every waiting item written to the file when the call began, oldest first, one at a time (in bounded memory).
   * An item may have stopped waiting by the time the caller acts on it: check {@link has} inside the mutation.
   */
  async each(visit: (item: WishlistItem) => void): Promise<void> {
    await this.eachWrittenLine((bytes, offset) => {
      if (bytes[0] !== 0x57 /* W */) return;
      const [, id] = keyFieldsOf(bytes, 2);
      const entry = id === undefined ? undefined : this.ids.entryOf(id);
      if (entry === undefined || this.lineOffsets.at(entry) !== offset) return;
      visit(parseRecord(bytes.toString('utf8'), this.path));
    });
  }

  /** Puts `item` (status wanted, no download yet) on the waiting list. Call inside a store mutation. */
  stageWaiting(item: DeepReadonly<WishlistItem>): void {
    if (item.status !== 'wanted') throw new RangeError(`only wanted items wait, not ${item.status} ones`);
    const offset = this.stage('W', item, JSON.stringify(item));
    this.matcher.add(item, this.addEntry(item.id, offset));
  }

  /** Takes `item` off the waiting list (handed to the download client, or removed). Call inside a store mutation. */
  stageLeft(item: AlbumIdentity & { readonly id: string }): void {
    const entry = this.ids.entryOf(item.id);
    if (entry === undefined) throw new RangeError(`wishlist item "${item.id}" is not waiting`);
    this.stage('L', item, '{}');
    this.withdraw(item.id, entry);
    this.matcher.remove(item, entry);
  }

  protected resetIndex(): void {
    this.lineOffsets = new GrowableArray(Float64Array);
    this.flags = new GrowableArray(Uint8Array);
    this.ids = new LineIds();
    this.waiting = new PositionMarks();
    this.matcher = new AlbumMatcher();
  }

  protected adoptIndex(a: IndexArrays): boolean {
    const lineOffsets = a.lineOffsets, flags = a.flags;
    if (!(lineOffsets instanceof Float64Array) || !(flags instanceof Uint8Array) || flags.length !== lineOffsets.length) return false;
    const [ids, byMbid, byName] = [LineIds.load(a, lineOffsets.length), loadTable(a, 'mbid'), loadTable(a, NAME_TABLE)];
    if (!ids || !byMbid || !byName) return false;
    this.lineOffsets = new GrowableArray(Float64Array, lineOffsets);
    this.flags = new GrowableArray(Uint8Array, flags);
    this.ids = ids;
    this.waiting = PositionMarks.from(flags, flags.length);
    this.matcher = new AlbumMatcher({ byMbid, byName });
    return true;
  }

  protected indexLine(bytes: Buffer, offset: number, number: number): void {
    const fields = keyFieldsOf(bytes, KEY_FIELDS);
    const [kind, id, mbid, name = ''] = fields;
    if (fields.length < KEY_FIELDS || !id || (kind !== 'W' && kind !== 'L')) throw new DamagedDataError(this.path, `line ${number} is not a waiting-list line`, RECOVERY);
    if (kind === 'W') {
      // A key written by an earlier version is made again from the record (read only for such lines).
      const key = isCurrentNameKey(name) ? name : nameKeyOf(parseRecord(bytes.toString('utf8'), this.path));
      this.matcher.addKeys(mbid, key, this.addEntry(id, offset));
      return;
    }
    const entry = this.ids.entryOf(id);
    if (entry === undefined) return;
    this.withdraw(id, entry);
    // An L line of an earlier version holds the key by earlier rules and no record to make it again: the key made
    // from the W line's record stays, pointing at an item that no longer waits, which `find` answers as not found.
    this.matcher.removeKeys(mbid, isCurrentNameKey(name) ? name : undefined, entry);
  }

  protected indexArrays(): IndexArrays {
    const arrays: IndexArrays = { lineOffsets: this.lineOffsets.copy(), flags: this.flags.copy() };
    this.ids.save(arrays);
    saveTable(arrays, 'mbid', this.matcher.tables.byMbid);
    saveTable(arrays, NAME_TABLE, this.matcher.tables.byName);
    return arrays;
  }

  private addEntry(id: string, offset: number): number {
    const before = this.ids.entryOf(id);
    if (before !== undefined) this.withdraw(id, before); // put on the list again without leaving it: the last line stands
    const entry = this.lineOffsets.length;
    this.lineOffsets.push(offset);
    this.flags.push(WAITING);
    this.ids.push(id);
    this.waiting.mark(entry);
    return entry;
  }

  private withdraw(id: string, entry: number): void {
    this.flags.set(entry, 0);
    this.waiting.unmark(entry);
    this.ids.forget(id, entry);
  }

  private stage(kind: 'W' | 'L', item: AlbumIdentity & { readonly id: string }, json: string): number {
    return this.appendLine(`${kind}\t${item.id}\t${cleanKeyField(item.mbid?.toLowerCase())}\t${cleanKeyField(nameKeyOf(item))}\t${json}`);
  }

  /** The records of `entries`, chosen before the first read: items that stop waiting meanwhile are still read as they were. */
  private async readItems(entries: readonly number[]): Promise<WishlistItem[]> {
    const lines = await this.readLinesAt(entries.map((entry) => this.lineOffsets.at(entry)));
    return lines.map((line) => parseRecord(line, this.path));
  }

  private async readItem(entry: number): Promise<WishlistItem> {
    return parseRecord(await this.readLine(this.lineOffsets.at(entry)), this.path);
  }
}

/** The record of a W line (the JSON after its key fields). */
function parseRecord(line: string, path: string): WishlistItem {
  let record: unknown;
  try {
    record = JSON.parse(line.slice(nthTab(line, KEY_FIELDS) + 1));
  } catch {
    record = undefined;
  }
  if (!isWaitingItem(record)) throw new DamagedDataError(path, `a line does not hold a wishlist item: ${line.slice(0, 80)}`, RECOVERY);
  return record;
}

/**
 * What every reader of a waiting item relies on. Each record was a checked wishlist item when it was staged, so a
 * line without these was damaged on disk; the rest of the fields are not re-checked on every read.
 */
function isWaitingItem(value: unknown): value is WishlistItem {
  if (typeof value !== 'object' || value === null) return false;
  return ['id', 'artist', 'type', 'added_at'].every((field) => typeof Reflect.get(value, field) === 'string') && Reflect.get(value, 'status') === 'wanted';
}
