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

  /**
   * A page of the wishlist: the items of the core document (being downloaded, downloaded, failed, or wanted again
   * after a failed attempt), newest first, then those waiting for their first download, most recently added
   * first. Only the waiting items the page shows are read from disk.
   */
  async list(filter: { limit: number; offset: number; status?: WishlistStatus }): Promise<{ items: WishlistItem[]; total: number; limit: number; offset: number }> {
    const withWaiting = filter.status === undefined || filter.status === 'wanted';
    // Both counts before the read from disk, during which an item may move from the waiting list to the document.
    const inDocument = this.order.count(filter.status);
    const total = inDocument + (withWaiting ? this.store.waiting.count : 0);
    const items = this.withDownloadStates(this.order.page(filter.offset, filter.limit, filter.status).flatMap((id) => this.store.data.wishlist[id] ?? []));
    if (withWaiting && items.length < filter.limit) {
      items.push(...(await this.store.waiting.page(Math.max(0, filter.offset - inDocument), filter.limit - items.length)));
    }
    return { items, total, limit: filter.limit, offset: filter.offset };
  }

  /**
   * Items being downloaded carry the state of their download, so the wishlist says "queued" where Downloads does
   * (a blackhole request waiting for its files) instead of a second word for the same thing. The downloads are
   * walked only for a page that shows such an item, as each download poll does.
   */
  private withDownloadStates(items: WishlistItem[]): WishlistItem[] {
    if (!items.some((item) => item.status === 'downloading')) return items;
    const states = new Map<string, NonNullable<WishlistItem['download_state']>>();
    for (const download of Object.values(this.store.data.downloads)) {
      if (download.state === 'queued' || download.state === 'searching' || download.state === 'downloading') states.set(download.wishlist_id, download.state);
    }
    return items.map((item) => {
      const state = item.status === 'downloading' ? states.get(item.id) : undefined;
      return state === undefined ? item : { ...item, download_state: state };
    });
  }

  /** Adds an item directly (skipping the queue), to wait for its first download. 409 when it is already wanted or owned. */
  async add(candidate: Candidate): Promise<WishlistItem> {
    const existing = this.known.findWanted(candidate);
    if (existing !== undefined) throw new ConflictError('this album is already on the wishlist', { wishlist_id: existing });
    if (this.library.owns(candidate)) throw new ConflictError('this album is already in the library', {});
    return this.store.mutate((_data, _emit, { waiting }) => {
      const item = wishlistItemFrom(candidate, { id: this.newId(), added_at: new Date(this.clock.now()).toISOString() });
      waiting.stageWaiting(item);
      return item;
    });
  }

  /** Removes an item (and forgets its downloads); fires `wishlist_removed`. */
  async remove(id: string): Promise<WishlistItem> {
    // A waiting item's record is on disk: read before the mutation, which runs synchronously.
    const waitingItem = this.store.data.wishlist[id] ? undefined : await this.store.waiting.get(id);
    return this.store.mutate((data, emit, { waiting }) => {
      const item = data.wishlist[id];
      if (item) {
        delete data.wishlist[id];
        this.known.removeWanted(item);
        emit('wishlist_removed', eventDataOf(item));
        return item;
      }
      // Handed to the download client while its record was read, it is in the document (above); else it is gone.
      if (!waitingItem || !waiting.has(id)) throw new NotFoundError('wishlist item', id);
      waiting.stageLeft(waitingItem);
      emit('wishlist_removed', eventDataOf(waitingItem));
      return waitingItem;
    });
  }

  counts(): Record<WishlistStatus, number> {
    return { wanted: this.order.count('wanted') + this.store.waiting.count, downloading: this.order.count('downloading'), downloaded: this.order.count('downloaded'), failed: this.order.count('failed') };
  }
}
