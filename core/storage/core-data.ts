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
  queue: Record<string, QueueItem>;
  wishlist: Record<string, WishlistItem>;
  downloads: Record<string, Download>;
  jobs: Record<string, Job>;
  journal: EventJournal;
  recent_events: DomainEvent[];
}

export const emptyCoreData = (): CoreData => ({
  schema_version: 1,
  queue: {},
  wishlist: {},
  downloads: {},
  jobs: {},
  journal: {},
  recent_events: [],
});
