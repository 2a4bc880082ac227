import { CANCELLED_BY_REQUESTER } from '../queue/decider.js';
import type { Download } from '../downloads/download.schema.js';
import type { QueueItem } from '../queue/queue-item.schema.js';
import type { WishlistItem } from '../wishlist/wishlist-item.schema.js';
import type { RequestStatus } from './request.schema.js';

/** What became of an approved request further down the path: its wishlist item, that item's download, the library. */
export interface RequestTrail {
  wishlist: WishlistItem | undefined;
  download: Download | undefined;
  inLibrary: boolean;
}

export interface RequestProgress {
  status: RequestStatus;
  /** For people: where it stands and, for a decline or a failure, why. */
  text: string;
  progress?: number;
  error?: string;
}

/** Where a request stands, from its queue item and what followed it. */
export function requestProgressOf(item: QueueItem, trail: RequestTrail): RequestProgress {
  if (item.status === 'pending') return { status: 'requested', text: 'Waiting for an admin to approve it' };
  if (item.status === 'rejected') {
    if (item.cancelled) return { status: 'cancelled', text: item.decline_reason === CANCELLED_BY_REQUESTER ? 'Cancelled by the requester' : `Cancelled (${item.decline_reason ?? 'by an admin'})` };
    const by = item.decided_by === undefined ? '' : ` by ${item.decided_by}`;
    return { status: 'declined', text: `Declined${by}${item.decline_reason === undefined ? '' : `: ${item.decline_reason}`}` };
  }
  const approved = item.auto_approved ? 'Approved automatically' : `Approved${item.decided_by === undefined ? '' : ` by ${item.decided_by}`}`;
  if (item.in_library || (trail.inLibrary && trail.wishlist?.status !== 'downloading')) return { status: 'in_library', text: 'In the library' };
  const wanted = trail.wishlist;
  if (!wanted) return { status: 'removed', text: `${approved}, then taken off the wishlist by an admin` };
  if (wanted.status === 'downloaded') return { status: 'downloaded', text: 'Downloaded; it shows in the library after the next library sync' };
  if (wanted.status === 'failed') {
    const error = trail.download?.error;
    return { status: 'failed', text: `The download failed${error === undefined ? '' : `: ${error}`}`, ...(error === undefined ? {} : { error }) };
  }
  const download = trail.download;
  if (wanted.status === 'downloading' && download?.state === 'searching') return { status: 'searching', text: 'Searching for it' };
  if (wanted.status === 'downloading' && download?.state === 'downloading') {
    return { status: 'downloading', text: `Downloading (${Math.round(download.progress * 100)} %)`, progress: download.progress };
  }
  if (wanted.status === 'downloading') return { status: 'approved', text: `${approved}; handed to the download client` };
  // Wanted again after a search that found nothing: the download client's words say why it waits.
  if (wanted.not_before !== undefined && download?.error !== undefined) return { status: 'approved', text: `${approved}; not found yet (${download.error}), trying again later` };
  return { status: 'approved', text: `${approved}; waiting for its turn to download` };
}
