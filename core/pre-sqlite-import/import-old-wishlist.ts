import { join } from 'node:path';
import type { WishlistItem } from '../wishlist/wishlist-item.schema.js';
import type { WishlistTable } from '../wishlist/wishlist-table.js';
import type { ImportCounts } from './import-counts.js';
import type { OldCoreData } from './old-core-data.js';
import { WAITING_WISHLIST } from './old-data-files.js';
import { eachLineOf, standingLinesOf, type OldLineFile } from './old-line-file.js';
import { checkedRecord } from './old-records.js';
import { PreSqliteImportError } from './pre-sqlite-import-error.js';

/**
 * The wishlist (inside the import's change): items from their first download on, in the order they entered the
 * document (numbered so, as hand-offs), then the items waiting for their first download in the order they were put
 * on the list: `wishlist-waiting.jsonl` (`W <TAB> id <TAB> mbid <TAB> name key <TAB> record`, the last W of an id
 * stands, `L` ends the wait), then the wanted items of earlier versions' documents that never had a download.
 */
export function importOldWishlist(dir: string, core: OldCoreData, wishlist: WishlistTable, counts: ImportCounts, notice: (message: string) => void): void {
  const entered = new Set<string>();
  for (const item of core.wishlist) {
    wishlist.insertWaiting({ ...item, status: 'wanted' });
    wishlist.enter(item);
    entered.add(item.id);
    counts.wishlist++;
  }
  const file: OldLineFile = { path: join(dir, WAITING_WISHLIST), acknowledged: core.waitingBytes, keyFields: 4, adds: 'W', removes: 'L' };
  const standing = standingLinesOf(file);
  for (const item of core.waiting) standing.delete(item.id);
  const wait = (item: WishlistItem) => {
    if (entered.has(item.id)) {
      notice(`wishlist item "${item.id}" both waits and has a download; it keeps its download`);
      return;
    }
    wishlist.insertWaiting(item);
    counts.waiting++;
  };
  eachLineOf(file, (line) => {
    if (standing.get(line.fields[1] as string) !== line.number) return;
    const item = checkedRecord('wishlist item', line.record(), file.path, `line ${line.number}`);
    if (item.status !== 'wanted' || item.id !== line.fields[1]) throw new PreSqliteImportError(file.path, `line ${line.number}`, 'its record is not a wanted item of that id');
    wait(item);
  });
  for (const item of core.waiting) wait(item);
}
