import { Store } from '../core/storage/store.js';
import { archiveFinishedDownloads } from './archive-finished-downloads.js';
import { fillLibrary } from './fill-library.js';
import { fillQueue, type PendingItem, type QueueMix } from './fill-queue.js';
import { checkQueueRowsAgree } from './queue-rows-agree.js';

/** Pages the filling connection may keep in memory (KiB): a million rows' index pages, so the fill is not disk-bound. */
const FILL_CACHE_KIB = 256 * 1024;

export interface FilledDataDir {
  pending: PendingItem[];
  approved: number;
  rejected: number;
  /** Approved albums on the wishlist, all waiting for their first download. */
  wishlistItems: number;
  archivedDownloads: number;
  /** The library: the downloaded albums (`decided`), else empty. */
  libraryAlbums: number;
  seconds: number;
}

/**
 * Fills the store of a data dir no service runs on, as the service will find it at its next start: `size` queue
 * items of `mix` (fill-queue.ts) and, for `decided`, what became of its approved albums: their finished downloads
 * archived and a library (as a sync leaves it) holding them. The store is opened as the service opens it (the same
 * schema, the data dir's lock) and closed cleanly, its WAL folded into the database.
 *
 * The fillers write in plain transactions of 20,000 rows on the store's connection, not through store.change():
 * GroupCommit runs each change in a SAVEPOINT, and every statement inside one keeps a statement journal that SQLite
 * writes to a temp file (about three times the work of the same insert in a plain transaction), or, with the journals
 * in memory, releases at a cost that grows with the database (thirty times slower per row by 120,000 rows).
 */
export async function fillDataDir(dataDir: string, size: number, mix: QueueMix): Promise<FilledDataDir> {
  const started = performance.now();
  const store = await Store.open(dataDir, { exclusive: true });
  try {
    // This connection only (the service opens the file afresh with its own settings): index pages of a million rows
    // stay in memory, and statement journals too, where SQLite would write each statement's to a temp file.
    store.db.pragma(`cache_size = -${FILL_CACHE_KIB}`);
    store.db.pragma('temp_store = MEMORY');
    const queue = fillQueue(store, size, mix);
    await checkQueueRowsAgree(store, queue.sample);
    const downloaded = mix === 'decided' ? queue.approved : [];
    archiveFinishedDownloads(store, downloaded);
    if (downloaded.length > 0) fillLibrary(store, downloaded.map(({ artist, album }) => ({ artist, album })));
    return {
      pending: queue.pending,
      approved: queue.approved.length,
      rejected: queue.rejected,
      wishlistItems: mix === 'waiting' ? queue.approved.length : 0,
      archivedDownloads: downloaded.length,
      libraryAlbums: downloaded.length,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await store.close();
  }
}
