import { join } from 'node:path';
import type { DomainEvent } from '@crateflow/sdk';
import type { Download } from '../downloads/download.schema.js';
import type { Job } from '../jobs/job.schema.js';
import type { QueueItem } from '../queue/queue-item.schema.js';
import type { WishlistItem } from '../wishlist/wishlist-item.schema.js';
import { CORE_DOCUMENT } from './old-data-files.js';
import { checkedRecord, recordsOf } from './old-records.js';
import { isObject, readOldDocument } from './read-old-document.js';
import { PreSqliteImportError } from './pre-sqlite-import-error.js';

/** The dashboard kept this many events. */
const RECENT_EVENTS = 50;

/** An event some sinks had yet to take. */
export interface OldJournalEntry {
  event: DomainEvent;
  pending: string[];
}

/**
 * The core document (`crateflow.json`) of an earlier version, read and sorted the way the old engine did when it
 * opened it, since the last versions moved what earlier ones kept in the document out of it at every start: decided
 * queue items (to the history, in the order they were decided), downloads of wishlist items no longer on the
 * wishlist (completed ones to the archive, others dropped), wanted wishlist items that never had a download (to the
 * waiting list), and the dashboard's event array (`recent_events`, the latest 50).
 */
export interface OldCoreData {
  file: string;
  pending: QueueItem[];
  /** Decided items still in the document (versions before the history file), by decision time. */
  decided: (QueueItem & { status: 'approved' | 'rejected' })[];
  /** Wishlist items from their first download on, in document order. */
  wishlist: WishlistItem[];
  /** Wanted items without a download, kept in the document by versions before the waiting list. */
  waiting: WishlistItem[];
  /** Every download in the document, in document order (creation order). */
  downloads: Download[];
  /** The wishlist items those downloads belong to that are no longer on the wishlist. */
  goneWishlistItems: Set<string>;
  jobs: Job[];
  journal: OldJournalEntry[];
  /** The dashboard's latest events, oldest first. */
  recent: DomainEvent[];
  /** The acknowledged lengths of the line files (0 for a file of a later version than the document). */
  historyBytes: number;
  archiveBytes: number;
  waitingBytes: number;
}

/** Reads `crateflow.json` (+ `.changes`) in `dir`; an empty core when there is none. */
export function readOldCoreData(dir: string): OldCoreData {
  const file = join(dir, CORE_DOCUMENT);
  const data = readOldDocument(file) ?? {};
  const queue = recordsOf('queue item', data.queue, 'queue', file);
  const allWishlist = recordsOf('wishlist item', data.wishlist, 'wishlist', file);
  const downloads = recordsOf('download', data.downloads, 'downloads', file);
  const downloaded = new Set(downloads.map((download) => download.wishlist_id));
  const onWishlist = new Set(allWishlist.map((item) => item.id));
  const isWaiting = (item: WishlistItem) => item.status === 'wanted' && !downloaded.has(item.id);
  return {
    file,
    pending: queue.filter((item) => item.status === 'pending'),
    decided: queue
      .filter((item): item is QueueItem & { status: 'approved' | 'rejected' } => item.status !== 'pending')
      .sort((a, b) => byCodeUnits(a.decided_at ?? '', b.decided_at ?? '')),
    wishlist: allWishlist.filter((item) => !isWaiting(item)),
    waiting: allWishlist.filter(isWaiting),
    downloads,
    goneWishlistItems: new Set([...downloaded].filter((id) => !onWishlist.has(id))),
    jobs: recordsOf('job', data.jobs, 'jobs', file),
    journal: journalOf(data.journal, file),
    recent: recentOf(data, file),
    historyBytes: byteCount(data, 'history_bytes', file),
    archiveBytes: byteCount(data, 'archive_bytes', file),
    waitingBytes: byteCount(data, 'waiting_bytes', file),
  };
}

function journalOf(journal: unknown, file: string): OldJournalEntry[] {
  if (journal === undefined) return [];
  if (!isObject(journal)) throw new PreSqliteImportError(file, '"journal"', 'not a collection of records');
  return Object.entries(journal).map(([key, entry]) => {
    const place = `journal record "${key}"`;
    if (!isObject(entry)) throw new PreSqliteImportError(file, place, 'not an object');
    const pending = entry.pending;
    if (!Array.isArray(pending) || !pending.every((sink) => typeof sink === 'string')) throw new PreSqliteImportError(file, place, 'its "pending" is not a list of sink names');
    return { event: checkedRecord('event', entry.event, file, place), pending };
  });
}

/** The `recent` collection, or the `recent_events` array of versions before it; the latest 50 either way. */
function recentOf(data: Record<string, unknown>, file: string): DomainEvent[] {
  if (Array.isArray(data.recent_events) && data.recent === undefined) {
    // Only ever shown on the dashboard, and checked as loosely when it was moved before: a malformed entry is left out.
    return data.recent_events.filter((event): event is DomainEvent => isObject(event) && typeof event.id === 'string' && typeof event.type === 'string').slice(-RECENT_EVENTS);
  }
  return recordsOf('event', data.recent, 'recent', file).slice(-RECENT_EVENTS);
}

/** An acknowledged length; documents of versions before a line file have none (0: the file holds nothing). */
function byteCount(data: Record<string, unknown>, field: string, file: string): number {
  const bytes = data[field];
  if (bytes === undefined) return 0;
  if (typeof bytes !== 'number' || !Number.isSafeInteger(bytes) || bytes < 0) throw new PreSqliteImportError(file, `"${field}"`, 'not a byte count');
  return bytes;
}

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
