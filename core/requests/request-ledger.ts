import { DownloadsTable } from '../downloads/downloads-table.js';
import { LibraryTable } from '../library/library-table.js';
import type { QueueItem } from '../queue/queue-item.schema.js';
import type { Store } from '../storage/store.js';
import { WishlistTable } from '../wishlist/wishlist-table.js';
import { requestProgressOf } from './request-progress.js';
import type { RequestItem, RequestPage, RequestStatus } from './request.schema.js';

/**
 * The newest requests a list looks at. Requests are made by people, a few a week per person; a list filtered by a
 * status that only their path tells (downloading, in library…) follows each of them, so the walk has a bound.
 */
export const REQUESTS_SCANNED = 10_000;

export interface RequestFilter {
  /** Only this user's requests. */
  user?: string;
  status?: RequestStatus;
  limit: number;
  offset: number;
}

/** Requests as people follow them: each queue item with `requested_by`, with where it stands now. */
export class RequestLedger {
  private readonly statements;

  constructor(store: Store, private readonly wishlist: WishlistTable, private readonly downloads: DownloadsTable, private readonly library: LibraryTable) {
    const db = store.db;
    this.statements = {
      all: db.prepare(`SELECT record FROM queue_items INDEXED BY queue_requests WHERE requested_by IS NOT NULL ORDER BY seq DESC LIMIT ${REQUESTS_SCANNED}`).pluck(),
      ofUser: db.prepare(`SELECT record FROM queue_items INDEXED BY queue_requests_by_user WHERE requested_by = ? ORDER BY seq DESC LIMIT ${REQUESTS_SCANNED}`).pluck(),
    };
  }

  page(filter: RequestFilter): RequestPage {
    const records = (filter.user === undefined ? this.statements.all.all() : this.statements.ofUser.all(filter.user)) as string[];
    const requests = records.map((record) => this.describe(JSON.parse(record) as QueueItem));
    const matching = filter.status === undefined ? requests : requests.filter((request) => request.status === filter.status);
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
