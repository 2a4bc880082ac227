import { inject, injectable } from 'tsyringe';
import type { Clock } from '@crateflow/sdk';
import { Tokens } from '../di/tokens.js';
import { ConflictError } from '../errors/conflict-error.js';
import { eventDataOf } from '../events/event-data-of.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { LibraryCatalog } from '../library/library-catalog.js';
import { KnownAlbums } from '../queue/known-albums.js';
import type { Candidate } from '../queue/queue-item.schema.js';
import { CoreStore } from '../storage/core-store.js';
import type { WishlistItem, WishlistStatus } from './wishlist-item.schema.js';
import { wishlistItemFrom } from './wishlist-item-from.js';
import { WishlistOrder } from './wishlist-order.js';

/** The wishlist: what the user wants downloaded, from approvals or added directly. */
@injectable()
export class WishlistService {
  constructor(
    @inject(CoreStore) private readonly store: CoreStore,
    @inject(KnownAlbums) private readonly known: KnownAlbums,
    @inject(WishlistOrder) private readonly order: WishlistOrder,
    @inject(LibraryCatalog) private readonly library: LibraryCatalog,
    @inject(Tokens.Clock) private readonly clock: Clock,
    @inject(Tokens.NewId) private readonly newId: () => string,
  ) {}

  list(filter: { limit: number; offset: number; status?: WishlistStatus }): { items: WishlistItem[]; total: number; limit: number; offset: number } {
    const items = this.order.page(filter.offset, filter.limit, filter.status).flatMap((id) => this.store.data.wishlist[id] ?? []);
    return { items, total: this.order.count(filter.status), limit: filter.limit, offset: filter.offset };
  }

  /** Adds an item directly (skipping the queue). 409 when it is already wanted or owned. */
  async add(candidate: Candidate): Promise<WishlistItem> {
    const existing = this.known.findWanted(candidate);
    if (existing !== undefined) throw new ConflictError('this album is already on the wishlist', { wishlist_id: existing });
    if (this.library.owns(candidate)) throw new ConflictError('this album is already in the library', {});
    return this.store.mutate((data) => {
      const item = wishlistItemFrom(candidate, { id: this.newId(), added_at: new Date(this.clock.now()).toISOString() });
      data.wishlist[item.id] = item;
      this.known.addWanted(item);
      return item;
    });
  }

  /** Removes an item (and forgets its downloads); fires `wishlist_removed`. */
  async remove(id: string): Promise<WishlistItem> {
    return this.store.mutate((data, emit) => {
      const item = data.wishlist[id];
      if (!item) throw new NotFoundError('wishlist item', id);
      delete data.wishlist[id];
      this.known.removeWanted(item);
      emit('wishlist_removed', eventDataOf(item));
      return item;
    });
  }

  counts(): Record<WishlistStatus, number> {
    return { wanted: this.order.count('wanted'), downloading: this.order.count('downloading'), downloaded: this.order.count('downloaded'), failed: this.order.count('failed') };
  }
}
