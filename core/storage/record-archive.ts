import { AppendOnlyLines } from './append-only-lines.js';
import { DamagedDataError } from './damaged-data-error.js';
import { GrowableArray } from './growable-array.js';
import { HashedKeyTable, loadTable, saveTable } from './hashed-key-table.js';
import type { IndexArrays } from './index-file.js';
import { nthTab } from './nth-tab.js';

/** The collections of the core document whose finished records move here. */
export type ArchivedCollection = 'downloads' | 'jobs';

/** The fields a listing of archived records filters on (a download's `state`; a job's `kind` and `status`). */
export type ArchiveFilters = Readonly<Record<string, string>>;

const RECOVERY = 'restore the data dir from a backup; moving archive.jsonl away loses the finished downloads and old jobs listed from it';
const LIST_PREFIX = 'list:';
const MAX_FILTER_FIELDS = 3;

/**
 * Finished records out of memory: downloads whose album left the wishlist and jobs older than the newest of their
 * kind move from the core document to an append-only file (`archive.jsonl`, durable with the core document as
 * {@link AppendOnlyLines} describes). Listings (`GET /api/v1/downloads`, `GET /api/v1/jobs`) read them from the
 * file, newest first; in memory there are only typed arrays: each line's offset, an id → line table, and for each
 * combination of filter values the lines that match it, so a filtered page costs one read per record shown
 * however many years of records the file holds.
 *
 * Line: `collection <TAB> id <TAB> filters <TAB> record JSON`, the filters as `name=value` pairs joined by `&`
 * and URI-encoded (so they hold no tab, newline, `&` or `=`). Records are never changed once archived.
 */
export class RecordArchive extends AppendOnlyLines {
  private lineOffsets = new GrowableArray(Float64Array);
  private byId = new HashedKeyTable();
  /** Lines in file order, per collection and combination of filter values (see {@link listKey}). */
  private lists = new Map<string, GrowableArray<Int32Array<ArrayBuffer>>>();

  private constructor(path: string) {
    super(path, RECOVERY);
  }

  /** Opens the archive at its last acknowledged length `committed` (from the core document). */
  static async open(path: string, committed: number): Promise<RecordArchive> {
    const archive = new RecordArchive(path);
    await archive.openAt(committed);
    return archive;
  }

  /**
   * Moves `record` in (call inside a store mutation that deletes it from the document; it counts once the
   * mutation commits). `filters` are the fields listings may ask for, at most three.
   */
  stage(collection: ArchivedCollection, record: { readonly id: string }, filters: ArchiveFilters): void {
    if (Object.keys(filters).length > MAX_FILTER_FIELDS) throw new RangeError(`an archived record has at most ${MAX_FILTER_FIELDS} filter fields`);
    const prefix = `${collection}\t${record.id}\t${encodeFilters(filters)}`;
    const offset = this.appendLine(`${prefix}\t${JSON.stringify(record)}`);
    this.indexKeys(prefix, offset, this.lineOffsets.length + 1);
  }

  /** How many archived records of `collection` match every one of `filters`. */
  count(collection: ArchivedCollection, filters: ArchiveFilters = {}): number {
    return this.lists.get(listKey(collection, filters))?.length ?? 0;
  }

  /** Archived records of `collection` matching `filters`, the most recently archived first. */
  async page<T>(collection: ArchivedCollection, filters: ArchiveFilters, offset: number, limit: number, isRecord: (value: unknown) => value is T): Promise<T[]> {
    const list = this.lists.get(listKey(collection, filters));
    if (!list) return [];
    const offsets: number[] = [];
    for (let i = list.length - 1 - offset; i >= 0 && offsets.length < limit; i--) offsets.push(this.lineOffsets.at(list.at(i)));
    return (await this.readLinesAt(offsets)).map((line) => this.recordOf(line, isRecord));
  }

  /** The archived record of `collection` with `id`, if any. */
  async get<T>(collection: ArchivedCollection, id: string, isRecord: (value: unknown) => value is T): Promise<T | undefined> {
    const line = this.byId.get(`${collection}\t${id}`);
    if (line === undefined) return undefined;
    const text = await this.readLine(this.lineOffsets.at(line));
    // The table holds hashes: the line itself says whether it is this record.
    return text.startsWith(`${collection}\t${id}\t`) ? this.recordOf(text, isRecord) : undefined;
  }

  protected indexLine(bytes: Buffer, offset: number, number: number): void {
    this.indexKeys(bytes.toString('utf8', 0, prefixLength(bytes)), offset, number);
  }

  /** Indexes a line by its key fields (`prefix`: collection, id and filters, tab-separated). */
  private indexKeys(prefix: string, offset: number, number: number): void {
    const [collection, id, filters, extra] = prefix.split('\t');
    if ((collection !== 'downloads' && collection !== 'jobs') || !id || filters === undefined || extra !== undefined) {
      throw new DamagedDataError(this.path, `line ${number} is not an archived record`, RECOVERY);
    }
    const decoded = decodeFilters(filters);
    if (!decoded) throw new DamagedDataError(this.path, `line ${number} has damaged filter fields`, RECOVERY);
    const line = this.lineOffsets.length;
    this.lineOffsets.push(offset);
    this.byId.set(`${collection}\t${id}`, line);
    for (const key of listKeysOf(collection, decoded)) {
      let list = this.lists.get(key);
      if (!list) this.lists.set(key, (list = new GrowableArray(Int32Array)));
      list.push(line);
    }
  }

  private recordOf<T>(line: string, isRecord: (value: unknown) => value is T): T {
    let record: unknown;
    try {
      record = JSON.parse(line.slice(nthTab(line, 3) + 1));
    } catch {
      record = undefined;
    }
    if (!isRecord(record)) throw new DamagedDataError(this.path, `a line does not hold the record it names: ${line.slice(0, 80)}`, RECOVERY);
    return record;
  }

  protected resetIndex(): void {
    this.lineOffsets = new GrowableArray(Float64Array);
    this.byId = new HashedKeyTable();
    this.lists = new Map();
  }

  protected adoptIndex(arrays: IndexArrays): boolean {
    const lineOffsets = arrays.lineOffsets;
    const byId = loadTable(arrays, 'id');
    if (!(lineOffsets instanceof Float64Array) || !byId) return false;
    const lists = new Map<string, GrowableArray<Int32Array<ArrayBuffer>>>();
    for (const [name, array] of Object.entries(arrays)) {
      if (!name.startsWith(LIST_PREFIX)) continue;
      if (!(array instanceof Int32Array)) return false;
      lists.set(name.slice(LIST_PREFIX.length), new GrowableArray(Int32Array, array));
    }
    this.lineOffsets = new GrowableArray(Float64Array, lineOffsets);
    this.byId = byId;
    this.lists = lists;
    return true;
  }

  protected indexArrays(): IndexArrays {
    const arrays: IndexArrays = { lineOffsets: this.lineOffsets.copy() };
    saveTable(arrays, 'id', this.byId);
    for (const [key, list] of this.lists) arrays[`${LIST_PREFIX}${key}`] = list.copy();
    return arrays;
  }
}

/** The list of the records of `collection` that match all of `filters` (fields in name order). */
function listKey(collection: string, filters: ArchiveFilters): string {
  return `${collection}?${encodeFilters(filters)}`;
}

/** Every list a record with `filters` belongs to: one per subset of its filter fields (at most 2³). */
function listKeysOf(collection: string, filters: ArchiveFilters): string[] {
  const entries = Object.entries(filters);
  const keys: string[] = [];
  for (let mask = 0; mask < 1 << entries.length; mask++) {
    keys.push(listKey(collection, Object.fromEntries(entries.filter((_, i) => mask & (1 << i)))));
  }
  return keys;
}

function encodeFilters(filters: ArchiveFilters): string {
  return Object.keys(filters)
    .sort()
    .map((name) => `${encodeURIComponent(name)}=${encodeURIComponent(filters[name] ?? '')}`)
    .join('&');
}

function decodeFilters(text: string): Record<string, string> | undefined {
  const filters: Record<string, string> = {};
  if (text === '') return filters;
  try {
    for (const pair of text.split('&')) {
      const [name, value, extra] = pair.split('=');
      if (!name || value === undefined || extra !== undefined) return undefined;
      filters[decodeURIComponent(name)] = decodeURIComponent(value);
    }
  } catch {
    return undefined;
  }
  return Object.keys(filters).length <= MAX_FILTER_FIELDS ? filters : undefined;
}

/**
 * The length of a line's three key fields and their tabs, all the index reads of it (its JSON is decoded only when
 * shown); the whole line when it has too few tabs, which indexing then names damaged.
 */
function prefixLength(line: Buffer): number {
  const at = nthTab(line, 3);
  return at === -1 ? line.length : at;
}
