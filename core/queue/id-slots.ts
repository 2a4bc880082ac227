import { HashedKeyTable } from '../storage/hashed-key-table.js';

/**
 * Small integers for string ids, for the number-owned {@link AlbumMatcher}: each id gets a slot while it is
 * held, and a released slot is given to the next id. The ids kept are the items' own strings, not copies, and
 * the id → slot lookup is a {@link HashedKeyTable} (its hash answers checked against the id kept in the slot).
 */
export class IdSlots {
  private slots = new HashedKeyTable();
  private readonly ids: (string | undefined)[] = [];
  private readonly free: number[] = [];

  /** The id's slot, given one if it has none. */
  take(id: string): number {
    const held = this.slotOf(id);
    if (held !== undefined) return held;
    const slot = this.free.pop() ?? this.ids.length;
    this.slots.set(id, slot);
    this.ids[slot] = id;
    return slot;
  }

  slotOf(id: string): number | undefined {
    const slot = this.slots.get(id);
    return slot !== undefined && this.ids[slot] === id ? slot : undefined;
  }

  idAt(slot: number | undefined): string | undefined {
    return slot === undefined ? undefined : this.ids[slot];
  }

  release(id: string): void {
    const slot = this.slotOf(id);
    if (slot === undefined) return;
    this.slots.delete(id, slot);
    this.ids[slot] = undefined;
    this.free.push(slot);
  }

  clear(): void {
    this.slots = new HashedKeyTable();
    this.ids.length = 0;
    this.free.length = 0;
  }
}
