import { inject, injectable } from 'tsyringe';
import type { Clock } from '@crateflow/sdk';
import { Tokens } from '../di/tokens.js';
import { DownloadsTable } from '../downloads/downloads-table.js';
import { ConflictError } from '../errors/conflict-error.js';
import { eventDataOf } from '../events/event-data-of.js';
import { UnitOfWork } from '../events/unit-of-work.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { LibraryTable } from '../library/library-table.js';
import type { Candidate } from '../queue/queue-item.schema.js';
import type { WishlistItem, WishlistStatus } from './wishlist-item.schema.js';
import { wishlistItemFrom } from './wishlist-item-from.js';
import { WishlistTable } from './wishlist-table.js';

/** The wishlist: what the user wants downloaded, from approvals or added directly. */
@injectable()
export class WishlistService {
  constructor(
    @inject(WishlistTable) private readonly wishlist: WishlistTable,
    @inject(DownloadsTable) private readonly downloads: DownloadsTable,
    @inject(LibraryTable) private readonly library: LibraryTable,
    @inject(UnitOfWork) private readonly unitOfWork: UnitOfWork,
    @inject(Tokens.Clock) private readonly clock: Clock,
    @inject(Tokens.NewId) private readonly newId: () => string,
  ) {}

  /**
   * A page of the wishlist: the items handed to the download client (being downloaded, downloaded, failed, or
   * wanted again after a failed attempt), latest hand-off first, then those waiting for their first download,
   * most recently added first.
   */
  list(filter: { limit: number; offset: number; status?: WishlistStatus }): { items: WishlistItem[]; total: number; limit: number; offset: number } {
    const { items, total } = this.wishlist.page(filter.offset, filter.limit, filter.status);
    return { items: this.withDownloadStates(items), total, limit: filter.limit, offset: filter.offset };
  }

  /**
   * Items being downloaded carry the state of their download, so the wishlist says "queued" where Downloads does
   * (a blackhole request waiting for its files) instead of a second word for the same thing. The downloads are
   * asked only for a page that shows such an item.
   */
  private withDownloadStates(items: WishlistItem[]): WishlistItem[] {
    const downloading = items.filter((item) => item.status === 'downloading').map((item) => item.id);
    if (downloading.length === 0) return items;
    const states = this.downloads.activeStateFor(downloading);
    return items.map((item) => {
      const state = item.status === 'downloading' ? states.get(item.id) : undefined;
      return state === undefined ? item : { ...item, download_state: state };
    });
  }

  /** Adds an item directly (skipping the queue), to wait for its first download. 409 when it is already wanted or owned. */
  async add(candidate: Candidate): Promise<WishlistItem> {
    return this.unitOfWork.mutate(() => {
      // Asked inside the change: two requests for one album cannot both find it missing.
      const existing = this.wishlist.findWanted(candidate);
      if (existing !== undefined) throw new ConflictError('this album is already on the wishlist', { wishlist_id: existing });
      if (this.library.owns(candidate)) throw new ConflictError('this album is already in the library', {});
      const item = wishlistItemFrom(candidate, { id: this.newId(), added_at: new Date(this.clock.now()).toISOString() });
      this.wishlist.insertWaiting(item);
      return item;
    });
  }

  /**
   * Removes an item; fires `wishlist_removed`. Its downloads were cancelled before (DownloadService.cancelFor); one
   * started since is retired here, in the same change, so no download is left behind for an item that is gone.
   */
  async remove(id: string): Promise<WishlistItem> {
    return this.unitOfWork.mutate((emit) => {
      const item = this.wishlist.remove(id);
      if (!item) throw new NotFoundError('wishlist item', id);
      this.downloads.retireFor([id]);
      emit('wishlist_removed', eventDataOf(item));
      return item;
    });
  }

  counts(): Record<WishlistStatus, number> {
    return {
      wanted: this.wishlist.count('wanted'),
      downloading: this.wishlist.count('downloading'),
      downloaded: this.wishlist.count('downloaded'),
      failed: this.wishlist.count('failed'),
    };
  }
}
