// A data dir as the last version before the database wrote it, at scale, for the importer's test: written with the
// old engine's own classes (while they still exist on this branch), so the files are exactly what that engine
// wrote. Test-only; the output is never committed. Answers what it wrote, as the counts the import must report.
import { join } from 'node:path';
import type { DomainEvent, LibraryAlbum } from '@crateflow/sdk';
import type { Download } from '../../core/downloads/download.schema.js';
import type { Job } from '../../core/jobs/job.schema.js';
import { LibraryAlbumsFile } from '../../core/library/library-albums-file.js';
import { DecidedHistory } from '../../core/queue/decided-history.js';
import type { QueueItem } from '../../core/queue/queue-item.schema.js';
import { CORE_COLLECTIONS, emptyCoreData, type CoreData } from '../../core/storage/core-data.js';
import { JsonDocument } from '../../core/storage/json-document.js';
import { RecordArchive } from '../../core/storage/record-archive.js';
import { WaitingWishlist } from '../../core/wishlist/waiting-wishlist.js';
import type { WishlistItem } from '../../core/wishlist/wishlist-item.schema.js';

export interface LargeOldDataDir {
  pending: number;
  approved: number;
  rejected: number;
  wishlist: number;
  waiting: number;
  downloads: number;
  archived_downloads: number;
  jobs: number;
  archived_jobs: number;
  events: number;
  undelivered: number;
  library_albums: number;
  sources: number;
  plugin_entries: number;
}

const at = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString();
const id = (prefix: string, n: number) => `01${prefix}${String(n).padStart(18, '0')}`;

/**
 * `items` queue items: a tenth pending, the rest decided (half approved, half rejected), every thousandth decision
 * restored to pending again (an R line) and every five-hundredth decided twice (the later decision stands); each
 * approval puts a wishlist item on the waiting list, the first hundred of them handed off (L lines) to the
 * document's wishlist with a download each; a twentieth as many completed downloads and 50 library syncs in the
 * archive beside 100 in the document; 50 recent events, 10 of them not yet taken by the webhooks sink; a tenth as
 * many library albums; 3 sources; 1,000 plugin entries.
 */
export async function writeLargeOldDataDir(dir: string, items: number): Promise<LargeOldDataDir> {
  const history = await DecidedHistory.open(join(dir, 'queue-history.jsonl'), 0);
  const waiting = await WaitingWishlist.open(join(dir, 'wishlist-waiting.jsonl'), 0);
  const archive = await RecordArchive.open(join(dir, 'archive.jsonl'), 0);
  const data: CoreData = emptyCoreData();
  const counts = { pending: 0, approved: 0, rejected: 0, wishlist: 0, waiting: 0, downloads: 0, archived_downloads: 0, jobs: 0, archived_jobs: 0, events: 0, undelivered: 0, library_albums: 0, sources: 0, plugin_entries: 0 };
  const handedOff = 100;
  for (let n = 0; n < items; n++) {
    const item: QueueItem = { id: id('q', n), artist: `Artist ${n % 5000}`, album: `Album ${n}`, type: 'album', source: n % 3 === 0 ? 'api' : 'new-releases', status: 'pending', added_at: at(n), score: (n % 100) / 100, year: 1990 + (n % 30) };
    if (n % 10 === 0) {
      data.queue[item.id] = item;
      counts.pending++;
      continue;
    }
    const status = n % 2 === 0 ? 'approved' : 'rejected';
    const decided = { ...item, status, decided_at: at(items + n) } as QueueItem & { status: 'approved' | 'rejected' };
    if (n % 500 === 1) history.stageDecided({ ...decided, status: status === 'approved' ? 'rejected' : 'approved' }); // decided again below
    history.stageDecided(decided);
    if (n % 1000 === 3) {
      history.stageRestored(decided);
      data.queue[item.id] = { ...item, rejected_before: true } as QueueItem;
      counts.pending++;
      continue;
    }
    counts[status]++;
    if (status !== 'approved') continue;
    const wanted: WishlistItem = { id: id('w', n), artist: item.artist, album: item.album, type: 'album', status: 'wanted', added_at: decided.decided_at ?? '', queue_id: item.id };
    waiting.stageWaiting(wanted);
    if (counts.wishlist < handedOff) {
      waiting.stageLeft(wanted);
      data.wishlist[wanted.id] = { ...wanted, status: 'downloading' };
      const download: Download = { id: id('d', n), wishlist_id: wanted.id, artist: item.artist, album: item.album, client: 'download-blackhole', state: 'downloading', progress: 0.5, attempts: 1, created_at: at(n), updated_at: at(n) };
      data.downloads[download.id] = download;
      counts.wishlist++;
      counts.downloads++;
    } else {
      counts.waiting++;
    }
  }
  for (let n = 0; n < items / 20; n++) {
    const download: Download = { id: id('a', n), wishlist_id: id('gone', n), artist: 'Gone', album: `Gone ${n}`, client: 'download-blackhole', state: 'completed', progress: 1, attempts: 1, created_at: at(n), updated_at: at(n), download_path: `/music/Gone ${n}` };
    archive.stage('downloads', download, { state: 'completed' });
    counts.archived_downloads++;
  }
  for (let n = 0; n < 150; n++) {
    const job: Job = { id: id('j', n), kind: 'library_sync', status: 'completed', trigger: 'schedule', started_at: at(n), finished_at: at(n + 1), summary: { albums: n } };
    if (n < 50) {
      archive.stage('jobs', job, { kind: job.kind, status: job.status });
      counts.archived_jobs++;
    } else {
      data.jobs[job.id] = job;
      counts.jobs++;
    }
  }
  for (let n = 0; n < 50; n++) {
    const event: DomainEvent = { id: id('e', n), type: 'queue_added', timestamp: at(n), data: { artist: `Artist ${n}`, album: `Album ${n}` } };
    data.recent[event.id] = event;
    if (n >= 40) data.journal[event.id] = { event, pending: ['webhooks'] };
    counts.events++;
    if (n >= 40) counts.undelivered++;
  }
  for (const file of [history, waiting, archive]) await file.flush();
  data.history_bytes = history.bytes;
  data.waiting_bytes = waiting.bytes;
  data.archive_bytes = archive.bytes;
  for (const [file, bytes] of [[history, data.history_bytes], [waiting, data.waiting_bytes], [archive, data.archive_bytes]] as const) await file.close(bytes);

  await writeDocument(join(dir, 'crateflow.json'), data, CORE_COLLECTIONS);
  const albums: LibraryAlbum[] = [];
  for (let n = 0; n < items / 10; n++) albums.push({ artist: `Owned ${n % 1000}`, album: `Owned Album ${n}`, ...(n % 2 === 0 ? { mbid: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}` } : {}) });
  const albumsFile = new LibraryAlbumsFile(join(dir, 'library-albums.jsonl'));
  await albumsFile.replace(albums);
  await albumsFile.close();
  counts.library_albums = albums.length;
  await writeDocument(join(dir, 'library.json'), { synced_at: at(0), count: albums.length }, []);
  await writeDocument(join(dir, 'sources.json'), { sources: { 'new-releases': { last_job: id('j', 149), last_completed_at: at(150) }, similar: { unfinished: true }, listenbrainz: {} } }, ['sources']);
  counts.sources = 3;
  const entries: Record<string, unknown> = {};
  for (let n = 0; n < 1000; n++) entries[`delivery/${n}`] = { id: `d_${n}`, status: n % 2 === 0 ? 'delivered' : 'failed' };
  await writeDocument(join(dir, 'plugin-webhooks.json'), { entries }, ['entries']);
  counts.plugin_entries = 1000;
  return counts;
}

/** A document as the old engine stores it: every field touched and committed (a change log), then folded at close. */
async function writeDocument(path: string, data: object, collections: readonly string[]): Promise<void> {
  const doc = await JsonDocument.open<Record<string, unknown>>(path, () => ({}), { collections });
  Object.assign(doc.data, data);
  for (const field of Object.keys(data)) doc.touch(field);
  await doc.commit();
  await doc.close();
}
