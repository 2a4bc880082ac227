type NumberArray = Uint8Array<ArrayBuffer> | Int32Array<ArrayBuffer> | Uint32Array<ArrayBuffer> | Float64Array<ArrayBuffer>;
type Kind<A extends NumberArray> = { new (length: number): A };

/**
 * A typed array that grows as items are pushed (doubling its room), for indexes that keep a number per line of a
 * large file: 8 bytes an offset instead of a boxed number in a JS array, and savable as is.
 */
export class GrowableArray<A extends NumberArray> {
  private items: A;
  private used: number;

  constructor(private readonly kind: Kind<A>, initial?: A) {
    this.items = initial ?? new kind(16);
    this.used = initial?.length ?? 0;
  }

  get length(): number {
    return this.used;
  }

  at(index: number): number {
    return this.items[index] ?? 0;
  }

  set(index: number, value: number): void {
    this.items[index] = value;
  }

  push(value: number): void {
    if (this.used === this.items.length) {
      const bigger = new this.kind(Math.max(16, this.items.length * 2));
      bigger.set(this.items);
      this.items = bigger;
    }
    this.items[this.used++] = value;
  }

  /** Appends every byte of `bytes` (a Uint8Array only). */
  pushBytes(bytes: Uint8Array): void {
    while (this.used + bytes.length > this.items.length) {
      const bigger = new this.kind(this.items.length * 2);
      bigger.set(this.items);
      this.items = bigger;
    }
    this.items.set(bytes, this.used);
    this.used += bytes.length;
  }

  /** The items from `start` to `end`, as a view (valid until the next push). */
  view(start: number, end: number): A {
    return this.items.subarray(start, end) as A;
  }

  /** Removes the item at `index`, moving the later ones down (for the rare removal from an ordered list). */
  removeAt(index: number): void {
    this.items.copyWithin(index, index + 1, this.used);
    this.used--;
  }

  /** Index of `value` in an ascending array, or -1. */
  indexOfSorted(value: number): number {
    let low = 0;
    let high = this.used - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const at = this.items[mid] ?? 0;
      if (at === value) return mid;
      if (at < value) low = mid + 1;
      else high = mid - 1;
    }
    return -1;
  }

  /** A copy of the items in use (to save while the array keeps changing). */
  copy(): A {
    return this.items.slice(0, this.used) as A;
  }

  clear(): void {
    this.items = new this.kind(16);
    this.used = 0;
  }
}
