import { GrowableArray } from './growable-array.js';
import { HashedKeyTable, loadTable, saveTable } from './hashed-key-table.js';
import type { IndexArrays } from './index-file.js';

/**
 * The id of each entry of an append-only file's index (a decision, a waiting item), kept as bytes in typed arrays
 * with an id → entry table that holds hashes: no string per entry, and savable with the index as three arrays.
 * `entryOf` compares the id in full, so a hash collision never answers for another record.
 */
export class LineIds {
  private starts = new GrowableArray(Float64Array);
  private bytes = new GrowableArray(Uint8Array);
  private byId = new HashedKeyTable();

  /** The ids saved by {@link save}; undefined when the arrays are not whole. */
  static load(arrays: IndexArrays, entries: number): LineIds | undefined {
    const starts = arrays.idStarts, bytes = arrays.idBytes, byId = loadTable(arrays, 'id');
    if (!(starts instanceof Float64Array) || !(bytes instanceof Uint8Array) || starts.length !== entries || !byId) return undefined;
    const ids = new LineIds();
    ids.starts = new GrowableArray(Float64Array, starts);
    ids.bytes = new GrowableArray(Uint8Array, bytes);
    ids.byId = byId;
    return ids;
  }

  save(arrays: IndexArrays): void {
    arrays.idStarts = this.starts.copy();
    arrays.idBytes = this.bytes.copy();
    saveTable(arrays, 'id', this.byId);
  }

  /** Adds the next entry, `id`, and makes it the one `entryOf(id)` answers. */
  push(id: string): number {
    const entry = this.starts.length;
    this.starts.push(this.bytes.length);
    this.bytes.pushBytes(Buffer.from(id));
    this.byId.set(id, entry);
    return entry;
  }

  /** The entry `id` currently names, if any. */
  entryOf(id: string): number | undefined {
    const entry = this.byId.get(id);
    return entry !== undefined && this.idOf(entry) === id ? entry : undefined;
  }

  /** `id` no longer names `entry` (the entry keeps its id for `idOf`). */
  forget(id: string, entry: number): void {
    this.byId.delete(id, entry);
  }

  idOf(entry: number): string {
    const start = this.starts.at(entry);
    const end = entry + 1 < this.starts.length ? this.starts.at(entry + 1) : this.bytes.length;
    const bytes = this.bytes.view(start, end);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  }
}
