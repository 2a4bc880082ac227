import type { LibraryCatalog } from '../library/library-catalog.js';
import type { CoreStore } from '../storage/core-store.js';
import type { KnownAlbums } from './known-albums.js';
import type { QueueItem } from './queue-item.schema.js';

/**
 * What a person deciding on a pending item wants to know about the album besides the item itself. A flag is
 * present, as `true`, only when it applies (as `in_library` on approved items), so items that carry none look
 * exactly as before and pages stay small.
 */
export interface QueueItemFlags {
  in_library?: true;
  wishlisted?: true;
  rejected_before?: true;
}

/**
 * The flags of pending items, read from the indexes at the time of the request (three map lookups per item), so
 * they follow library syncs, wishlist changes and decisions without being stored on the item.
 */
export class QueueItemFlagger {
  constructor(
    private readonly known: KnownAlbums,
    private readonly library: LibraryCatalog,
    private readonly store: CoreStore,
  ) {}

  flagsOf(item: QueueItem): QueueItemFlags {
    const decided = this.store.history.find(item);
    const flags: QueueItemFlags = {};
    if (this.library.owns(item)) flags.in_library = true;
    if (this.known.findWanted(item) !== undefined) flags.wishlisted = true;
    // Restored after a rejection, or another decided item for the same album was rejected.
    if (item.rejected_before === true || (decided !== undefined && decided.id !== item.id && decided.status === 'rejected')) flags.rejected_before = true;
    return flags;
  }

  /** Whether the person has the album already, or will: in the library, or wanted on the wishlist. */
  owned(item: QueueItem): boolean {
    return this.library.owns(item) || this.known.findWanted(item) !== undefined;
  }

  /**
   * Changes whenever a flag of some item may have changed: a library sync, a wishlist change, a decision. Cached
   * pages and views that carry flags are named with it, so none outlives the indexes it was read from.
   */
  get stamp(): string {
    return `${this.library.syncedAt ?? ''}:${this.library.count}:${this.known.version}:${this.store.history.bytes}`;
  }
}
