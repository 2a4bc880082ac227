import type { CoreData } from '../storage/core-data.js';
import type { DeepReadonly } from '../storage/track-changes.js';
import { AlbumMatcher, type AlbumIdentity } from '../library/library-index.js';

/**
 * Every album already proposed or wanted: queue items (whatever their status, so a rejected candidate is not
 * proposed again) and wishlist items. Kept in step with the store by the services that change it.
 *
 * Queue and wishlist entries are indexed apart: an approved album is in both, and removing it from the
 * wishlist must leave the queue entry known, exactly as a restart (which rebuilds this from the store) does.
 */
export class KnownAlbums {
  private readonly queued = new AlbumMatcher();
  private readonly wanted = new AlbumMatcher();

  constructor(data: DeepReadonly<CoreData>) {
    for (const item of Object.values(data.queue)) this.queued.add(item, item.id);
    for (const item of Object.values(data.wishlist)) this.wanted.add(item, item.id);
  }

  /** `wishlist:<id>` or `queue:<id>` of a matching entry (the wishlist first), if any. */
  find(item: AlbumIdentity): string | undefined {
    const wanted = this.wanted.find(item);
    if (wanted !== undefined) return `wishlist:${wanted}`;
    const queued = this.queued.find(item);
    return queued === undefined ? undefined : `queue:${queued}`;
  }

  /** The id of the wishlist item for this album, if there is one. */
  findWanted(item: AlbumIdentity): string | undefined {
    return this.wanted.find(item);
  }

  addQueued(item: AlbumIdentity & { id: string }): void {
    this.queued.add(item, item.id);
  }

  addWanted(item: AlbumIdentity & { id: string }): void {
    this.wanted.add(item, item.id);
  }

  removeWanted(item: AlbumIdentity & { id: string }): void {
    this.wanted.remove(item, item.id);
  }
}
