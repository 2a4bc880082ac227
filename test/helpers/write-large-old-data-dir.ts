// A data dir as the last version before the database (commit 64ca710) left it, at scale, for the importer's test:
// its files written directly in that version's formats (test/helpers/old-engine-files.ts), commit by commit as its
// services changed the data, so the snapshots, the change logs and the line files hold the bytes that version wrote
// for the same changes (without the .idx caches it saved beside the line files, which the import ignores).
// Test-only; the output is never committed. Answers what it wrote, as the counts the import must report.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DomainEvent, LibraryAlbum } from '@crateflow/sdk';
import type { Download } from '../../core/downloads/download.schema.js';
import type { Job } from '../../core/jobs/job.schema.js';
import type { QueueItem } from '../../core/queue/queue-item.schema.js';
import type { WishlistItem } from '../../core/wishlist/wishlist-item.schema.js';
import { noImportCounts, type ImportCounts } from '../../core/pre-sqlite-import/import-counts.js';
import {
  archivedLine, decidedLine, leftLine, libraryAlbumsFileOf, OldDocument, OldLineFile, restoredLine, waitingLine, type DocumentEdit,
} from './old-engine-files.js';

export type LargeOldDataDir = ImportCounts;

export interface LargeOldDataDirOptions {
  /**
   * How the old service ended: `stopped` (every change log folded into its snapshot, as at a SIGTERM) or `killed`
   * (SIGKILL: the core document's latest commits still in its change log, the very last one cut short in the middle
   * of its append with its lines already in the history and waiting files past their acknowledged lengths, and the
   * last commits of sources.json and of the webhooks plugin's document in their logs). Default `stopped`.
   */
  end?: 'stopped' | 'killed';
}

const at = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString();
const id = (prefix: string, n: number) => `01${prefix}${String(n).padStart(18, '0')}`;
const mbid = (n: number) => `0000000A-0000-4000-8000-${String(n).padStart(12, '0')}`;
const HANDED_OFF = 100;
/** The core document of 64ca710 (core/storage/core-data.ts): its fields in order, and its keyed collections. */
const EMPTY_CORE = { schema_version: 1, queue: {}, wishlist: {}, downloads: {}, jobs: {}, journal: {}, recent: {}, history_bytes: 0, archive_bytes: 0, waiting_bytes: 0 };
const CORE_COLLECTIONS = ['queue', 'wishlist', 'downloads', 'jobs', 'journal', 'recent'];

/** The core document and its line files, changed as CoreStore.mutate changed them. */
class OldCore {
  readonly doc = new OldDocument(EMPTY_CORE, CORE_COLLECTIONS);
  readonly history = new OldLineFile();
  readonly archive = new OldLineFile();
  readonly waiting = new OldLineFile();

  private lengths = [0, 0, 0];

  /** One mutation: what `change` did, then the new length of each line file it appended to, as CoreStore.mutate. */
  mutate(change: (edit: DocumentEdit) => void, torn = false): void {
    this.lengths = [this.history.bytes, this.archive.bytes, this.waiting.bytes];
    if (torn) this.doc.tornCommit(change, this.putLengths);
    else this.doc.commit(change, this.putLengths);
  }

  private readonly putLengths = (edit: DocumentEdit) => {
    if (this.history.bytes !== this.lengths[0]) edit.put('history_bytes', this.history.bytes);
    if (this.archive.bytes !== this.lengths[1]) edit.put('archive_bytes', this.archive.bytes);
    if (this.waiting.bytes !== this.lengths[2]) edit.put('waiting_bytes', this.waiting.bytes);
  };
}

/**
 * `items` queue items: a tenth pending, the rest decided (half approved, half rejected), every thousandth decision
 * restored to pending again (an R line) and every five-hundredth decided twice (the later decision stands; the first
 * an approval of an album owned already, or a rejection); each approval puts a wishlist item on the waiting list,
 * the first hundred of them handed off (L lines) to the document's wishlist with a download each; a quarter of the
 * items with an mbid (upper case, as a client may send it); a twentieth as many completed downloads and 50 library
 * syncs in the archive beside 100 in the document; 50 recent events, 10 of them not yet taken by the webhooks sink;
 * a tenth as many library albums; 3 sources; 1,000 plugin entries. Killed (see `end`), the last commit approves the
 * newest pending item, and is lost: it stays pending.
 */
export async function writeLargeOldDataDir(dir: string, items: number, options: LargeOldDataDirOptions = {}): Promise<LargeOldDataDir> {
  const killed = options.end === 'killed';
  const counts: LargeOldDataDir = noImportCounts();
  const core = new OldCore();

  // Downloads of albums a library sync found since: created, then archived when their wishlist item went.
  for (let n = 0; n < items / 20; n++) {
    const download: Download = { id: id('a', n), wishlist_id: id('gone', n), artist: 'Gone', album: `Gone ${n}`, client: 'download-blackhole', state: 'completed', progress: 1, attempts: 1, created_at: at(n), updated_at: at(n), download_path: `/music/Gone ${n}` };
    core.mutate((edit) => edit.set('downloads', download.id, download));
    core.mutate((edit) => {
      core.archive.append(archivedLine('downloads', download, { state: download.state }));
      edit.del('downloads', download.id);
    });
    counts.archived_downloads++;
  }
  // Library syncs: as each started, the finished ones of its kind beyond the newest 100 moved to the archive.
  const jobs: Job[] = [];
  for (let n = 0; n < 150; n++) {
    const job: Job = { id: id('j', n), kind: 'library_sync', status: 'completed', trigger: 'schedule', started_at: at(n), summary: { albums: n }, finished_at: at(n + 1) };
    core.mutate((edit) => {
      edit.set('jobs', job.id, job);
      const old = jobs.length >= 100 ? jobs.shift() : undefined;
      if (old) {
        core.archive.append(archivedLine('jobs', old, { kind: old.kind, status: old.status }));
        edit.del('jobs', old.id);
        counts.archived_jobs++;
      }
    });
    jobs.push(job);
  }
  counts.jobs = jobs.length;
  // Events: journaled for the webhooks sink and kept for the dashboard; the sink took all but the last 10.
  for (let n = 0; n < 50; n++) {
    const event: DomainEvent = { id: id('e', n), type: 'queue_added', timestamp: at(n), data: { artist: `Artist ${n}`, album: `Album ${n}` } };
    core.mutate((edit) => {
      edit.set('journal', event.id, { event, pending: ['webhooks'] });
      edit.set('recent', event.id, event);
    });
    if (n < 40) core.mutate((edit) => edit.del('journal', event.id));
    counts.events++;
    if (n >= 40) counts.undelivered++;
  }

  // Killed, the service had been stopped cleanly once before its last run (every document then folded).
  if (killed) core.doc.fold();

  let newestPending: QueueItem | undefined;
  for (let n = 0; n < items; n++) {
    const item: QueueItem = {
      id: id('q', n), artist: `Artist ${n % 5000}`, album: `Album ${n}`, ...(n % 4 === 2 ? { mbid: mbid(n) } : {}), year: 1990 + (n % 30), score: (n % 100) / 100,
      type: 'album', source: n % 3 === 0 ? 'api' : 'new-releases', status: 'pending', added_at: at(n),
    };
    core.mutate((edit) => edit.set('queue', item.id, item));
    if (n % 10 === 0) {
      newestPending = item;
      counts.pending++;
      continue;
    }
    const status = n % 2 === 0 ? 'approved' : 'rejected';
    if (n % 500 === 1) {
      // Decided first the other way (an approval of an album owned already: nothing to download), then again below.
      const first: QueueItem = { ...item, status: status === 'approved' ? 'rejected' : 'approved', decided_at: at(items + n), ...(status === 'approved' ? {} : { in_library: true }) };
      core.mutate((edit) => {
        core.history.append(decidedLine(first));
        edit.del('queue', item.id);
      });
    }
    const decided = decide(core, item, status, at(items + n), id('w', n));
    if (n % 1000 === 3) {
      const { decided_at: _at, wishlist_id: _wanted, in_library: _owned, ...rest } = decided;
      const restored: QueueItem = { ...rest, status: 'pending', rejected_before: true };
      core.mutate((edit) => {
        core.history.append(restoredLine(restored));
        edit.set('queue', item.id, restored);
      });
      counts.pending++;
      continue;
    }
    counts[status]++;
    if (status !== 'approved') continue;
    if (counts.wishlist < HANDED_OFF) {
      const wanted = wishlistItemOf(decided);
      core.mutate((edit) => {
        core.waiting.append(leftLine(wanted));
        edit.set('wishlist', wanted.id, { ...wanted, status: 'downloading' });
        const download: Download = { id: id('d', n), wishlist_id: wanted.id, artist: item.artist, album: `Album ${n}`, client: 'download-blackhole', state: 'downloading', progress: 0.5, attempts: 1, created_at: at(items + n), updated_at: at(items + n) };
        edit.set('downloads', download.id, download);
      });
      counts.wishlist++;
      counts.downloads++;
    } else {
      counts.waiting++;
    }
  }
  if (killed && newestPending) decide(core, newestPending, 'approved', at(2 * items), id('w', items), true);
  else core.doc.fold();
  await core.doc.write(join(dir, 'crateflow.json'));
  await core.history.write(join(dir, 'queue-history.jsonl'));
  await core.waiting.write(join(dir, 'wishlist-waiting.jsonl'));
  await core.archive.write(join(dir, 'archive.jsonl'));

  counts.library_albums = await writeLibrary(dir, items / 10);
  counts.sources = await writeSources(dir, killed);
  counts.plugin_entries = await writeWebhooksPluginDocument(dir, killed);
  return counts;
}

/** QueueService.apply: the decision in the history, an approval's wishlist item on the waiting list, in one commit. */
function decide(core: OldCore, item: QueueItem, status: 'approved' | 'rejected', decidedAt: string, wishlistId: string, torn = false): QueueItem {
  const decided: QueueItem = { ...item, status, decided_at: decidedAt, ...(status === 'approved' ? { wishlist_id: wishlistId } : {}) };
  core.mutate((edit) => {
    if (status === 'approved') core.waiting.append(waitingLine(wishlistItemOf(decided)));
    edit.del('queue', item.id);
    core.history.append(decidedLine(decided));
  }, torn);
  return decided;
}

/** The wanted item an approval made (wishlistItemFrom: only the fields the queue item has). */
function wishlistItemOf(decided: QueueItem): WishlistItem {
  return {
    id: decided.wishlist_id ?? '', artist: decided.artist, ...(decided.album !== undefined ? { album: decided.album } : {}), ...(decided.mbid !== undefined ? { mbid: decided.mbid } : {}),
    ...(decided.year !== undefined ? { year: decided.year } : {}), type: decided.type, status: 'wanted', added_at: decided.decided_at ?? '', queue_id: decided.id,
  };
}

/** The catalogue a sync wrote (library-albums.jsonl) and library.json, a document only ever replaced whole. */
async function writeLibrary(dir: string, count: number): Promise<number> {
  const albums: LibraryAlbum[] = [];
  for (let n = 0; n < count; n++) albums.push({ artist: `Owned ${n % 1000}`, album: `Owned Album ${n}`, ...(n % 2 === 0 ? { mbid: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}` } : {}) });
  await writeFile(join(dir, 'library-albums.jsonl'), libraryAlbumsFileOf(albums));
  const library = new OldDocument({ synced_at: null, count: 0 }, []);
  library.replaceWhole({ synced_at: at(0), count: albums.length });
  await library.write(join(dir, 'library.json'));
  return albums.length;
}

/** sources.json: what three discovery sources remembered, one commit each (killed: the last one still in the log). */
async function writeSources(dir: string, killed: boolean): Promise<number> {
  const sources = new OldDocument({ sources: {} }, ['sources']);
  const records: [string, object][] = [['new-releases', { last_job: id('j', 149), last_completed_at: at(150) }], ['similar', { unfinished: true }], ['listenbrainz', {}]];
  for (const [i, [name, record]] of records.entries()) {
    if (killed && i === records.length - 1) sources.fold(); // the clean stop before the last run
    sources.commit((edit) => edit.set('sources', name, record));
  }
  if (!killed) sources.fold();
  await sources.write(join(dir, 'sources.json'));
  return records.length;
}

/** plugin-webhooks.json: the sink's delivery records, one commit each (killed: the last ten still in the log). */
async function writeWebhooksPluginDocument(dir: string, killed: boolean): Promise<number> {
  const plugin = new OldDocument({ entries: {} }, ['entries']);
  const entries = 1000;
  for (let n = 0; n < entries; n++) {
    if (killed && n === entries - 10) plugin.fold();
    plugin.commit((edit) => edit.set('entries', `delivery/${n}`, { id: `d_${n}`, status: n % 2 === 0 ? 'delivered' : 'failed' }));
  }
  if (!killed) plugin.fold();
  await plugin.write(join(dir, 'plugin-webhooks.json'));
  return entries;
}
