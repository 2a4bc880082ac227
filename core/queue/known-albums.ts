import type { CoreData } from '../storage/core-data.js';
import { AlbumMatcher, type AlbumIdentity } from '../library/library-index.js';

/**
 * Every album already proposed or wanted: queue items (whatever their status, so a rejected candidate is not
 * proposed again) and wishlist items. Kept in step with the store by the services that change it.
 */
export class KnownAlbums {
  private readonly matcher = new AlbumMatcher();

  constructor(data: Readonly<CoreData>) {
    for (const item of Object.values(data.queue)) this.matcher.add(item, `queue:${item.id}`);
    for (const item of Object.values(data.wishlist)) this.matcher.add(item, `wishlist:${item.id}`);
  }

  /** `queue:<id>` or `wishlist:<id>` of the matching entry, if any. */
  find(item: AlbumIdentity): string | undefined {
    return this.matcher.find(item);
  }

  addQueued(item: AlbumIdentity & { id: string }): void {
    this.matcher.add(item, `queue:${item.id}`);
  }

  addWanted(item: AlbumIdentity & { id: string }): void {
    this.matcher.add(item, `wishlist:${item.id}`);
  }

  removeWanted(item: AlbumIdentity & { id: string }): void {
    this.matcher.remove(item, `wishlist:${item.id}`);
  }
}
