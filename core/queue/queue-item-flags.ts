import type { LibraryTable } from '../library/library-table.js';
import type { WishlistTable } from '../wishlist/wishlist-table.js';
import type { QueueItem } from './queue-item.schema.js';
import type { QueueTable } from './queue-table.js';

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
 * The flags of pending items, read from the tables at the time of the request (a few indexed lookups per item), so
 * they follow library syncs, wishlist changes and decisions without being stored on the item.
 */
export class QueueItemFlagger {
  constructor(
    private readonly queue: QueueTable,
    private readonly wishlist: WishlistTable,
    private readonly library: LibraryTable,
  ) {}

  flagsOf(item: QueueItem): QueueItemFlags {
    const flags: QueueItemFlags = {};
    if (this.library.owns(item)) flags.in_library = true;
    if (this.wishlist.findWanted(item) !== undefined) flags.wishlisted = true;
    // Restored after a rejection, or the latest decision on another item of the same album was a rejection.
    if (item.rejected_before === true || this.rejectedElsewhere(item)) flags.rejected_before = true;
    return flags;
  }

  private rejectedElsewhere(item: QueueItem): boolean {
    const decided = this.queue.findDecided(item);
    return decided !== undefined && decided.id !== item.id && decided.status === 'rejected';
  }
}
