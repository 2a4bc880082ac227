import type { CoreData } from '../storage/core-data.js';
import type { MutationTools } from '../storage/core-store.js';
import type { Download } from './download.schema.js';

/**
 * Takes the downloads of wishlist items that are being removed out of the core document (call inside the store
 * mutation that removes them): a finished download moves to the archive, where `GET /api/v1/downloads` still
 * lists it (a library sync removes an album because its download landed, and that download is history worth
 * keeping), and any other is forgotten (its client was told to cancel it before). A year of finished downloads
 * then costs disk, not memory, snapshot bytes or a pass of every download poll.
 */
export function retireDownloadsOf(data: CoreData, wishlistIds: ReadonlySet<string>, archive: MutationTools['archive']): void {
  for (const download of Object.values(data.downloads)) {
    if (!wishlistIds.has(download.wishlist_id)) continue;
    if (download.state === 'completed') archive.stage('downloads', download, { state: download.state });
    delete data.downloads[download.id];
  }
}

/** What every reader of an archived download relies on (it was a checked record when archived). */
export function isArchivedDownload(value: unknown): value is Download {
  if (typeof value !== 'object' || value === null) return false;
  return ['id', 'wishlist_id', 'artist', 'state', 'updated_at'].every((field) => typeof Reflect.get(value, field) === 'string');
}
