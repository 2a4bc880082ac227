/**
 * Small integers for string ids, for the number-owned {@link AlbumMatcher}: each id gets a slot while it is
 * held, and a released slot is given to the next id. The ids themselves are the items' own strings, not copies.
 */
export class IdSlots {
  private readonly slots = new Map<string, number>();
  private readonly ids: (string | undefined)[] = [];
  private readonly free: number[] = [];

  /** The id's slot, given one if it has none. */
  take(id: string): number {
    let slot = this.slots.get(id);
    if (slot === undefined) {
      slot = this.free.pop() ?? this.ids.length;
      this.slots.set(id, slot);
      this.ids[slot] = id;
    }
    return slot;
  }

  slotOf(id: string): number | undefined {
    return this.slots.get(id);
  }

  idAt(slot: number | undefined): string | undefined {
    return slot === undefined ? undefined : this.ids[slot];
  }

  release(id: string): void {
    const slot = this.slots.get(id);
    if (slot === undefined) return;
    this.slots.delete(id);
    this.ids[slot] = undefined;
    this.free.push(slot);
  }

  clear(): void {
    this.slots.clear();
    this.ids.length = 0;
    this.free.length = 0;
  }
}
