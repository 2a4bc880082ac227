import type { DomainEvent, LibraryAlbum } from '@crateflow/sdk';
import type { Download } from '../downloads/download.schema.js';
import type { Job } from '../jobs/job.schema.js';
import type { QueueItem } from '../queue/queue-item.schema.js';
import type { WishlistItem } from '../wishlist/wishlist-item.schema.js';
import { isObject } from './read-old-document.js';
import { PreSqliteImportError } from './pre-sqlite-import-error.js';

/**
 * What the tables need of each kind of record, checked as it is read: every record was a checked one when the old
 * engine wrote it, so one without these was damaged on disk, and the import stops naming it rather than write a row
 * whose columns cannot be made. Other fields are carried over as they are.
 */
const REQUIRED = {
  'queue item': { strings: ['id', 'artist', 'status', 'source', 'added_at'], status: ['pending', 'approved', 'rejected'] },
  'wishlist item': { strings: ['id', 'artist', 'status', 'added_at'], status: ['wanted', 'downloading', 'downloaded', 'failed'] },
  download: { strings: ['id', 'wishlist_id', 'state'], status: ['queued', 'searching', 'downloading', 'completed', 'failed'] },
  job: { strings: ['id', 'kind', 'status'], status: ['running', 'completed', 'failed'] },
  event: { strings: ['id', 'type'], status: undefined },
  album: { strings: ['artist', 'album'], status: undefined },
} as const;

type Kind = keyof typeof REQUIRED;
interface KindRecord {
  'queue item': QueueItem;
  'wishlist item': WishlistItem;
  download: Download;
  job: Job;
  event: DomainEvent;
  album: LibraryAlbum;
}

/** `value` as a record of `kind`, or a PreSqliteImportError naming `file` and `place`. */
export function checkedRecord<K extends Kind>(kind: K, value: unknown, file: string, place: string): KindRecord[K] {
  if (!isObject(value)) throw new PreSqliteImportError(file, place, `the ${kind} is not an object`);
  const required = REQUIRED[kind];
  for (const field of required.strings) {
    if (typeof value[field] !== 'string') throw new PreSqliteImportError(file, place, `the ${kind} has no "${field}"`);
  }
  const status = value[kind === 'download' ? 'state' : 'status'];
  if (required.status !== undefined && !(required.status as readonly unknown[]).includes(status)) {
    throw new PreSqliteImportError(file, place, `the ${kind} has an unknown status "${String(status)}"`);
  }
  return value as unknown as KindRecord[K];
}

/** The records of a keyed collection of the core document, each carrying its own key as id where it has one. */
export function recordsOf<K extends Kind>(kind: K, collection: unknown, field: string, file: string): KindRecord[K][] {
  if (collection === undefined) return [];
  if (!isObject(collection)) throw new PreSqliteImportError(file, `"${field}"`, 'not a collection of records');
  return Object.entries(collection).map(([key, value]) => {
    const record = checkedRecord(kind, value, file, `${field} record "${key}"`);
    if (kind !== 'event' && kind !== 'album' && Reflect.get(record, 'id') !== key) throw new PreSqliteImportError(file, `${field} record "${key}"`, 'does not carry its own id');
    return record;
  });
}
