import { DownloadsTable } from '../downloads/downloads-table.js';
import { LibraryTable } from '../library/library-table.js';
import type { QueueItem } from '../queue/queue-item.schema.js';
import type { Store } from '../storage/store.js';
import { WishlistTable } from '../wishlist/wishlist-table.js';
import { requestProgressOf } from './request-progress.js';
import type { RequestItem, RequestPage, RequestStatus } from './request.schema.js';

/**
 * The newest requests a list filtered by a status of the path (approved … removed) looks at: only following each
 * approved request tells where it is now, so that walk has a bound. Unfiltered lists, and `requested`, `declined`
 * and `cancelled`, are read a page at a time from the queue's own columns.
 */
export const REQUESTS_SCANNED = 10_000;

export interface RequestFilter {
  /** Only this user's requests. */
  user?: string;
  status?: RequestStatus;
  limit: number;
  offset: number;
}

/** The queue status a request status is found among. */
const QUEUE_STATUS_OF: Record<RequestStatus, 'pending' | 'approved' | 'rejected'> = {
  requested: 'pending',
  declined: 'rejected',
  cancelled: 'rejected',
  approved: 'approved',
  searching: 'approved',
  downloading: 'approved',
  downloaded: 'approved',
  in_library: 'approved',
  failed: 'approved',
  removed: 'approved',
};

/** Requests as people follow them: each queue item with `requested_by`, with where it stands now. */
export class RequestLedger {
  private readonly db;

  constructor(store: Store, private readonly wishlist: WishlistTable, private readonly downloads: DownloadsTable, private readonly library: LibraryTable) {
    this.db = store.db;
  }

  page(filter: RequestFilter): RequestPage {
    const where = filter.user === undefined ? ['requested_by IS NOT NULL'] : ['requested_by = ?'];
    const params: (string | number)[] = filter.user === undefined ? [] : [filter.user];
    const index = filter.user === undefined ? 'queue_requests' : 'queue_requests_by_user';
    if (filter.status !== undefined) {
      where.push('status = ?');
      params.push(QUEUE_STATUS_OF[filter.status]);
    }
    const from = `FROM queue_items INDEXED BY ${index} WHERE ${where.join(' AND ')}`;
    const { status } = filter;
    // The queue's own status says it: one page from the index, counted there.
    if (status === undefined || status === 'requested') {
      const records = this.db.prepare(`SELECT record ${from} ORDER BY seq DESC LIMIT ? OFFSET ?`).pluck().all(...params, filter.limit, filter.offset) as string[];
      const total = Number(this.db.prepare(`SELECT count(*) ${from}`).pluck().get(...params));
      return { items: records.map((record) => this.describe(JSON.parse(record) as QueueItem)), total, limit: filter.limit, offset: filter.offset };
    }
    // Where it stands now: each of the newest requests of that queue status, followed.
    const records = this.db.prepare(`SELECT record ${from} ORDER BY seq DESC LIMIT ${REQUESTS_SCANNED}`).pluck().all(...params) as string[];
    const matching = records.map((record) => this.describe(JSON.parse(record) as QueueItem)).filter((request) => request.status === status);
    return { items: matching.slice(filter.offset, filter.offset + filter.limit), total: matching.length, limit: filter.limit, offset: filter.offset };
  }

  /** A queue item that is a request, as its requester sees it. */
  describe(item: QueueItem): RequestItem {
    const wishlist = item.wishlist_id === undefined ? undefined : this.wishlist.get(item.wishlist_id);
    const download = wishlist === undefined ? undefined : this.downloads.latestFor(wishlist.id);
    const progress = requestProgressOf(item, { wishlist, download, inLibrary: item.status === 'approved' && this.library.owns(item) });
    return {
      id: item.id,
      artist: item.artist,
      ...(item.album === undefined ? {} : { album: item.album }),
      ...(item.title === undefined ? {} : { title: item.title }),
      ...(item.mbid === undefined ? {} : { mbid: item.mbid }),
      type: item.type,
      ...(item.cover_url === undefined ? {} : { cover_url: item.cover_url }),
      ...(item.year === undefined ? {} : { year: item.year }),
      requested_by: item.requested_by ?? '',
      ...(item.note === undefined ? {} : { note: item.note }),
      requested_at: item.added_at,
      status: progress.status,
      status_text: progress.text,
      ...(item.decline_reason === undefined || item.cancelled ? {} : { decline_reason: item.decline_reason }),
      ...(item.decided_by === undefined ? {} : { decided_by: item.decided_by }),
      ...(item.decided_at === undefined ? {} : { decided_at: item.decided_at }),
      ...(item.auto_approved ? { auto_approved: true } : {}),
      ...(progress.progress === undefined ? {} : { progress: progress.progress }),
      ...(progress.error === undefined ? {} : { error: progress.error }),
    };
  }
}
