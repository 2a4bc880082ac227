import { DownloadsTable } from '../core/downloads/downloads-table.js';
import type { Download } from '../core/downloads/download.schema.js';
import type { Store } from '../core/storage/store.js';
import { benchId } from './bench-id.js';
import type { ApprovedAlbum } from './fill-queue.js';

const PER_TRANSACTION = 20_000;
/** How long after its approval an album finished downloading. */
const DOWNLOAD_MS = 600_000;

/**
 * Adds the downloads a year of use leaves in a stopped service's store: one completed download per approved album,
 * archived as a library sync archives it once the album is filed and its wishlist item goes. Written through the
 * service's DownloadsTable (insert, then retireFor, the call a sync makes), so the rows are those the service
 * writes; driving 450,000 albums through the blackhole client one poll at a time would take days.
 */
export function archiveFinishedDownloads(store: Store, albums: readonly ApprovedAlbum[]): void {
  const downloads = new DownloadsTable(store);
  for (let from = 0; from < albums.length; from += PER_TRANSACTION) {
    const batch = albums.slice(from, from + PER_TRANSACTION);
    // A plain transaction, not store.change(): see fill-data-dir.ts.
    store.db.transaction(() => {
      for (const [i, { artist, album, wishlistId, decidedAt }] of batch.entries()) {
        const at = new Date(Date.parse(decidedAt) + DOWNLOAD_MS).toISOString();
        const download: Download = {
          id: benchId(Date.parse(at), from + i), wishlist_id: wishlistId, artist, album, client: 'download-blackhole', state: 'completed', progress: 1, attempts: 1,
          created_at: at, updated_at: at, download_path: `/srv/downloads/complete/${artist} - ${album}`,
        };
        downloads.insert(download);
      }
      const { archived } = downloads.retireFor(batch.map((album) => album.wishlistId));
      if (archived !== batch.length) throw new Error(`archived ${archived} of ${batch.length} finished downloads`);
    }).immediate();
  }
}
