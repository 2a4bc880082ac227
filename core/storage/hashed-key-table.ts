import type { IndexArrays } from './index-file.js';

const EMPTY = -1;
const MIN_CAPACITY = 16;

/**
 * A map from string keys to non-negative integers that keeps no strings: each key is held as a 64-bit hash in
 * typed arrays (12 bytes a slot, at most four in five slots used), so a quarter of a million match keys cost a few
 * MB instead of a string and a Map entry each, and the whole table can be written to disk and read back as three
 * arrays. Two different keys meet with a probability of about n²/2⁶⁵ (3 × 10⁻¹⁰ for 100,000 keys); callers that
 * need exact identity compare what the value points at.
 *
 * Open addressing with linear probing; deletion shifts the following run back, so there are no tombstones and a
 * table that sees many removals stays as fast as a fresh one. Four in five slots may be used before it doubles:
 * a miss then probes about 13 slots of plain arrays, cheaper than the room a half-empty table would take.
 */
export class HashedKeyTable {
  private high: Uint32Array<ArrayBuffer>;
  private low: Uint32Array<ArrayBuffer>;
  private values: Int32Array<ArrayBuffer>;
  private used = 0;

  constructor(capacity = MIN_CAPACITY) {
    const size = Math.max(MIN_CAPACITY, 2 ** Math.ceil(Math.log2(capacity)));
    this.high = new Uint32Array(size);
    this.low = new Uint32Array(size);
    this.values = new Int32Array(size).fill(EMPTY);
  }

  /** A table from the arrays of {@link HashedKeyTable.arrays} (as read back from disk). */
  static fromArrays(arrays: TableArrays): HashedKeyTable {
    const { high, low, values } = arrays;
    const size = values.length;
    if (size < MIN_CAPACITY || (size & (size - 1)) !== 0 || high.length !== size || low.length !== size) throw new Error('not the arrays of a hashed key table');
    const table = new HashedKeyTable(MIN_CAPACITY);
    table.high = high;
    table.low = low;
    table.values = values;
    // An indexed loop: at start-up (cold code, every saved table: millions of slots) a for-of is about 7 times slower.
    for (let i = 0; i < size; i++) if (values[i] !== EMPTY) table.used++;
    return table;
  }

  get size(): number {
    return this.used;
  }

  /** The table's storage, to write to disk; valid until the next change. */
  get arrays(): TableArrays {
    return { high: this.high, low: this.low, values: this.values };
  }

  get(key: string): number | undefined {
    hash(key);
    const slot = this.find(hashHigh, hashLow);
    return slot === EMPTY ? undefined : this.values[slot];
  }

  /** Sets `key` to `value` (an integer from 0 to 2³¹ − 1), replacing what it had. */
  set(key: string, value: number): void {
    if (!Number.isInteger(value) || value < 0 || value > 0x7fffffff) throw new RangeError(`hashed key table values are 31-bit integers, not ${value}`);
    hash(key);
    const slot = this.find(hashHigh, hashLow);
    if (slot !== EMPTY) {
      this.values[slot] = value;
      return;
    }
    if ((this.used + 1) * 5 > this.values.length * 4) this.grow();
    this.insert(hashHigh, hashLow, value);
    this.used++;
  }

  /** Removes `key`, or only when it holds `value` if that is given (another owner may have taken the key since). */
  delete(key: string, value?: number): boolean {
    hash(key);
    const slot = this.find(hashHigh, hashLow);
    if (slot === EMPTY || (value !== undefined && this.values[slot] !== value)) return false;
    this.removeAt(slot);
    this.used--;
    return true;
  }

  clear(): void {
    this.high = new Uint32Array(MIN_CAPACITY);
    this.low = new Uint32Array(MIN_CAPACITY);
    this.values = new Int32Array(MIN_CAPACITY).fill(EMPTY);
    this.used = 0;
  }

  private find(high: number, low: number): number {
    const mask = this.values.length - 1;
    for (let slot = low & mask; ; slot = (slot + 1) & mask) {
      if (this.values[slot] === EMPTY) return EMPTY;
      if (this.low[slot] === low && this.high[slot] === high) return slot;
    }
  }

  private insert(high: number, low: number, value: number): void {
    const mask = this.values.length - 1;
    let slot = low & mask;
    while (this.values[slot] !== EMPTY) slot = (slot + 1) & mask;
    this.high[slot] = high;
    this.low[slot] = low;
    this.values[slot] = value;
  }

  private grow(): void {
    const { high, low, values } = this;
    const size = values.length * 2;
    this.high = new Uint32Array(size);
    this.low = new Uint32Array(size);
    this.values = new Int32Array(size).fill(EMPTY);
    for (let slot = 0; slot < values.length; slot++) {
      const value = values[slot] ?? EMPTY;
      if (value !== EMPTY) this.insert(high[slot] ?? 0, low[slot] ?? 0, value);
    }
  }

  /** Empties `slot` and moves back every later entry of its run that may no longer be found past the gap. */
  private removeAt(slot: number): void {
    const mask = this.values.length - 1;
    let gap = slot;
    for (let next = (gap + 1) & mask; this.values[next] !== EMPTY; next = (next + 1) & mask) {
      const home = (this.low[next] ?? 0) & mask;
      // The entry at `next` stays only if its home lies cyclically after the gap and up to `next`.
      const stays = gap <= next ? home > gap && home <= next : home > gap || home <= next;
      if (stays) continue;
      this.high[gap] = this.high[next] ?? 0;
      this.low[gap] = this.low[next] ?? 0;
      this.values[gap] = this.values[next] ?? EMPTY;
      gap = next;
    }
    this.values[gap] = EMPTY;
  }
}

export interface TableArrays {
  high: Uint32Array<ArrayBuffer>;
  low: Uint32Array<ArrayBuffer>;
  values: Int32Array<ArrayBuffer>;
}

/** Puts copies of `table`'s arrays into a saved index's arrays, as `<name>High`, `<name>Low` and `<name>Values`. */
export function saveTable(into: IndexArrays, name: string, table: HashedKeyTable): void {
  const { high, low, values } = table.arrays;
  into[`${name}High`] = high.slice();
  into[`${name}Low`] = low.slice();
  into[`${name}Values`] = values.slice();
}

/** The table saved as `name` by {@link saveTable}, or undefined when those arrays are missing or not a table's. */
export function loadTable(from: IndexArrays, name: string): HashedKeyTable | undefined {
  const high = from[`${name}High`];
  const low = from[`${name}Low`];
  const values = from[`${name}Values`];
  if (!(high instanceof Uint32Array) || !(low instanceof Uint32Array) || !(values instanceof Int32Array)) return undefined;
  try {
    return HashedKeyTable.fromArrays({ high, low, values });
  } catch {
    return undefined;
  }
}

// The last hash, in two module variables rather than a returned pair: lookups run per request and per line at
// start-up, and an array per call would be garbage each time.
let hashHigh = 0;
let hashLow = 0;

/** Two 32-bit MurmurHash3-style hashes of the key's UTF-16 units, with different seeds: 64 bits in all. */
function hash(key: string): void {
  let a = 0x9747b28c ^ key.length;
  let b = 0x3c6ef372 ^ key.length;
  for (let i = 0; i < key.length; i++) {
    let k = Math.imul(key.charCodeAt(i), 0xcc9e2d51);
    k = Math.imul((k << 15) | (k >>> 17), 0x1b873593);
    a ^= k;
    a = (Math.imul((a << 13) | (a >>> 19), 5) + 0xe6546b64) | 0;
    b ^= Math.imul(k, 0x85ebca6b) ^ i;
    b = (Math.imul((b << 17) | (b >>> 15), 9) + 0x52dce729) | 0;
  }
  hashHigh = finish(a);
  hashLow = finish(b);
}

function finish(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
