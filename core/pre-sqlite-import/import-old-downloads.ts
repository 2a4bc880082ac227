import { join } from 'node:path';
import type { Download } from '../downloads/download.schema.js';
import type { DownloadsTable } from '../downloads/downloads-table.js';
import type { ImportCounts } from './import-counts.js';
import type { OldCoreData } from './old-core-data.js';
import { RECORD_ARCHIVE } from './old-data-files.js';
import { eachLineOf, type OldLineFile } from './old-line-file.js';
import { checkedRecord } from './old-records.js';
import { PreSqliteImportError } from './pre-sqlite-import-error.js';

/** `archive.jsonl`: `downloads|jobs <TAB> id <TAB> filters <TAB> record`, in the order the records were archived. */
export function recordArchiveOf(dir: string, core: OldCoreData): OldLineFile {
  return { path: join(dir, RECORD_ARCHIVE), acknowledged: core.archiveBytes, keyFields: 3 };
}

/**
 * Downloads (inside the import's change): the archived ones first, in the order they were archived (their wishlist
 * items are gone, so archiving them through the table numbers them in that order), then those of the document in
 * creation order; those of wishlist items no longer on the wishlist (documents of earlier versions) are retired as
 * the old engine retired them at its next start: a completed one archived after the others, any other dropped.
 */
export function importOldDownloads(dir: string, core: OldCoreData, downloads: DownloadsTable, counts: ImportCounts, notice: (message: string) => void): void {
  const file = recordArchiveOf(dir, core);
  const seen = new Set<string>();
  const archivedFor = new Set<string>();
  eachLineOf(file, (line) => {
    if (line.fields[0] !== 'downloads') return;
    const download = checkedRecord('download', line.record(), file.path, `line ${line.number}`);
    if (download.id !== line.fields[1] || download.state !== 'completed') throw new PreSqliteImportError(file.path, `line ${line.number}`, 'its record is not a completed download of that id');
    if (seen.has(download.id)) return notice(`download "${download.id}" is archived twice; the first stands`);
    seen.add(download.id);
    downloads.insert(download);
    archivedFor.add(download.wishlist_id);
  });
  counts.archived_downloads += downloads.retireFor(archivedFor).archived;
  const live: Download[] = [];
  for (const download of core.downloads) {
    if (seen.has(download.id)) {
      notice(`download "${download.id}" is both archived and in the document; the archived one stands`);
      continue;
    }
    downloads.insert(download);
    live.push(download);
  }
  const retired = downloads.retireFor(core.goneWishlistItems);
  counts.archived_downloads += retired.archived;
  counts.downloads += live.length - retired.archived - retired.deleted;
}
