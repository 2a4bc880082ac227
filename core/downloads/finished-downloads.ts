import type { CoreData } from '../storage/core-data.js';
import { byCodeUnits } from '../sorting/code-unit-order.js';

/**
 * How many finished downloads of albums no longer on the wishlist are kept (`GET /api/v1/downloads`). A library
 * sync takes an album off the wishlist once its download is filed, and the record of that download stays as
 * history; a year of use leaves tens of thousands, which every start would read and every poll pass over.
 */
export const KEEP_FINISHED_DOWNLOADS = 1000;

/** Forgets the oldest finished downloads whose wishlist item is gone, beyond the newest `keep`. Answers how many. */
export function forgetOldFinishedDownloads(data: CoreData, keep = KEEP_FINISHED_DOWNLOADS): number {
  const finished = Object.values(data.downloads).filter((d) => d.state === 'completed' && !Object.hasOwn(data.wishlist, d.wishlist_id));
  if (finished.length <= keep) return 0;
  finished.sort((a, b) => byCodeUnits(a.updated_at, b.updated_at));
  const old = finished.slice(0, finished.length - keep);
  for (const download of old) delete data.downloads[download.id];
  return old.length;
}
