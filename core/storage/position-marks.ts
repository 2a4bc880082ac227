const FIRST_CAPACITY = 16;

/**
 * A set of marked positions 0, 1, 2, … that answers "how many marks before position p" and "where is the k-th
 * mark" in O(log n) (a Fenwick tree), for paging an ordered list filtered by a field without walking it: the
 * k-th wanted item of 45,000 wishlist items is 16 steps away, not 45,000.
 */
export class PositionMarks {
  // tree[i] (1-based) counts the marks at positions (i - lowbit(i), i]; the capacity is a power of two.
  private tree = new Int32Array(FIRST_CAPACITY + 1);
  private marks = 0;

  /** Builds the tree over `marked` (1 = marked) in one pass. */
  static from(marked: Uint8Array, length: number): PositionMarks {
    const built = new PositionMarks();
    let capacity = FIRST_CAPACITY;
    while (capacity < length) capacity *= 2;
    const tree = new Int32Array(capacity + 1);
    for (let i = 1; i <= capacity; i++) {
      const own = i <= length && marked[i - 1] ? 1 : 0;
      const count = (tree[i] ?? 0) + own;
      tree[i] = count;
      built.marks += own;
      const parent = i + (i & -i);
      if (parent <= capacity) tree[parent] = (tree[parent] ?? 0) + count;
    }
    built.tree = tree;
    return built;
  }

  get total(): number {
    return this.marks;
  }

  mark(position: number): void {
    this.add(position, 1);
  }

  unmark(position: number): void {
    this.add(position, -1);
  }

  /** Where the `k`-th mark (0-based, in position order) is; -1 when there are not that many. */
  nth(k: number): number {
    if (k < 0 || k >= this.marks) return -1;
    const capacity = this.tree.length - 1;
    let position = 0;
    let left = k + 1;
    for (let step = capacity; step > 0; step >>= 1) {
      const next = position + step;
      const count = this.tree[next] ?? 0;
      if (next <= capacity && count < left) {
        position = next;
        left -= count;
      }
    }
    return position; // 1-based index position + 1 holds the mark, which is 0-based position `position`
  }

  private add(position: number, delta: number): void {
    if (position + 1 >= this.tree.length) this.grow(position + 1);
    for (let i = position + 1; i < this.tree.length; i += i & -i) this.tree[i] = (this.tree[i] ?? 0) + delta;
    this.marks += delta;
  }

  /**
   * Doubles the capacity until `needed` fits. With a power-of-two capacity n, the new nodes above n cover only
   * empty positions, except node 2n, which covers everything: the total.
   */
  private grow(needed: number): void {
    let capacity = this.tree.length - 1;
    while (capacity < needed) {
      const tree = new Int32Array(capacity * 2 + 1);
      tree.set(this.tree);
      tree[capacity * 2] = this.marks;
      this.tree = tree;
      capacity *= 2;
    }
  }
}
