import type { DomainEvent } from '@crateflow/sdk';
import type { Download } from '../downloads/download.schema.js';
import type { EventJournal } from '../events/event-journal.js';
import type { Job } from '../jobs/job.schema.js';
import type { QueueItem } from '../queue/queue-item.schema.js';
import type { WishlistItem } from '../wishlist/wishlist-item.schema.js';

/**
 * The domain's document (`crateflow.json`). Everything that must change together lives here, so one atomic
 * write covers an approval, the wishlist item it creates and the event it fires.
 */
export interface CoreData {
  schema_version: 1;
  /** Pending queue items; decided ones live in the decided history (queue-history.jsonl). */
  queue: Record<string, QueueItem>;
  /** Wishlist items from their first download on; those still waiting for it live in wishlist-waiting.jsonl. */
  wishlist: Record<string, WishlistItem>;
  downloads: Record<string, Download>;
  jobs: Record<string, Job>;
  journal: EventJournal;
  /** The latest events for the dashboard, by id (oldest first): each commit logs only the events it adds. */
  recent: Record<string, DomainEvent>;
  /** The acknowledged length of queue-history.jsonl: bytes past it were never committed. */
  history_bytes: number;
  /** The acknowledged length of archive.jsonl (finished downloads, old jobs), likewise. */
  archive_bytes: number;
  /** The acknowledged length of wishlist-waiting.jsonl (items waiting for their first download), likewise. */
  waiting_bytes: number;
}

export const emptyCoreData = (): CoreData => ({
  schema_version: 1,
  queue: {},
  wishlist: {},
  downloads: {},
  jobs: {},
  journal: {},
  recent: {},
  history_bytes: 0,
  archive_bytes: 0,
  waiting_bytes: 0,
});

/** The keyed collections of CoreData: changes are logged record by record, and the snapshot holds a record a line. */
/** Record fields of the core collections with few distinct values, kept once each in memory (see SharedValues). */
export const CORE_SHARED_FIELDS = ['type', 'status', 'source', 'state', 'artist'];

export const CORE_COLLECTIONS = ['queue', 'wishlist', 'downloads', 'jobs', 'journal', 'recent'] as const satisfies readonly (keyof CoreData)[];
