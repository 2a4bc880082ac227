import type { CoreStore } from '../storage/core-store.js';
import { AlbumMatcher, type AlbumIdentity } from '../library/library-index.js';
import { IdSlots } from './id-slots.js';

/** What an album matched: a queue item (pending or decided) or a wishlist item, with its status. */
export interface KnownMatch {
  in: 'queue' | 'wishlist';
  id: string;
  status: string;
}

/**
 * Every album already proposed or wanted: pending queue items and the wishlist items of the core document here,
 * wishlist items waiting for their first download in the waiting wishlist, decided queue items in the decided
 * history (so a rejected candidate is not proposed again). Kept in step with the store by the services that
 * change it, and rebuilt when a failed commit rolls the store back.
 *
 * Queue and wishlist entries are indexed apart: an approved album is in both, and removing it from the
 * wishlist must leave the queue entry known, exactly as a restart (which rebuilds this from the store) does.
 */
export class KnownAlbums {
  private readonly pending = new AlbumMatcher();
  private readonly wanted = new AlbumMatcher();
  // The two matchers take numbers: a queue item and its wishlist item have different ids, so one slot set serves both.
  private readonly slots = new IdSlots();
  private changes = 0;

  constructor(private readonly store: CoreStore) {
    this.rebuild();
    store.onRollback(() => this.rebuild());
  }

  /** The entry matching `item`: the wishlist first, then the pending queue, then decided items. */
  find(item: AlbumIdentity): KnownMatch | undefined {
    const wanted = this.findWanted(item);
    if (wanted !== undefined) return { in: 'wishlist', id: wanted, status: this.store.data.wishlist[wanted]?.status ?? 'wanted' };
    const pending = this.slots.idAt(this.pending.find(item));
    if (pending !== undefined) return { in: 'queue', id: pending, status: 'pending' };
    const decided = this.store.history.find(item);
    return decided && { in: 'queue', ...decided };
  }

  /** The id of the pending queue item for this album (by mbid, or by name), if there is one. */
  findPending(item: AlbumIdentity): string | undefined {
    return this.slots.idAt(this.pending.find(item));
  }

  /** The id of the wishlist item for this album, if there is one. */
  findWanted(item: AlbumIdentity): string | undefined {
    return this.slots.idAt(this.wanted.find(item)) ?? this.store.waiting.find(item);
  }

  /** Grows with every change of the indexes: what was read from them before may be out of date. */
  get version(): number {
    return this.changes;
  }

  addPending(item: AlbumIdentity & { id: string }): void {
    this.changes++;
    this.pending.add(item, this.slots.take(item.id));
  }

  /** Call when a pending item was decided (the decided history knows it from then on). */
  removePending(item: AlbumIdentity & { id: string }): void {
    this.changes++;
    this.forget(this.pending, item);
  }

  addWanted(item: AlbumIdentity & { id: string }): void {
    this.changes++;
    this.wanted.add(item, this.slots.take(item.id));
  }

  removeWanted(item: AlbumIdentity & { id: string }): void {
    this.changes++;
    this.forget(this.wanted, item);
  }

  private forget(matcher: AlbumMatcher, item: AlbumIdentity & { id: string }): void {
    const slot = this.slots.slotOf(item.id);
    if (slot === undefined) return;
    matcher.remove(item, slot);
    this.slots.release(item.id);
  }

  private rebuild(): void {
    this.changes++;
    this.pending.clear();
    this.wanted.clear();
    this.slots.clear();
    for (const item of Object.values(this.store.data.queue)) this.pending.add(item, this.slots.take(item.id));
    for (const item of Object.values(this.store.data.wishlist)) this.wanted.add(item, this.slots.take(item.id));
  }
}
