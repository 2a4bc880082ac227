import { join } from 'node:path';
import type { Logger } from '@crateflow/sdk';
import { DownloadsTable } from '../downloads/downloads-table.js';
import { EventLogTable } from '../events/event-log-table.js';
import { JobsTable } from '../jobs/jobs-table.js';
import { LibraryTable } from '../library/library-table.js';
import { QueueTable } from '../queue/queue-table.js';
import { SourceStateTable } from '../sources/source-state-table.js';
import type { Store } from '../storage/store.js';
import { WishlistTable } from '../wishlist/wishlist-table.js';
import { noImportCounts, type ImportCounts } from './import-counts.js';
import { importOldPluginDocument, importOldLibrary, importOldSources } from './import-old-documents.js';
import { importOldDownloads } from './import-old-downloads.js';
import { importOldEvents } from './import-old-events.js';
import { importOldJobs } from './import-old-jobs.js';
import { importOldQueue } from './import-old-queue.js';
import { importOldWishlist } from './import-old-wishlist.js';
import { importRecordOf, recordImport } from './import-record.js';
import { moveOldFiles } from './move-old-files.js';
import { readOldCoreData } from './old-core-data.js';
import { oldDataFilesIn, pluginOfDocument } from './old-data-files.js';
import { PreSqliteImportError } from './pre-sqlite-import-error.js';

/** What a start found of an earlier version's data. */
export interface PreSqliteImport {
  /** What the import wrote (now, or at an earlier start whose move of the old files was cut short). */
  counts: ImportCounts;
  /** False when the data was imported at an earlier start and only the move of the old files was finished now. */
  importedNow: boolean;
  /** Where the old files are now. */
  movedTo: string;
}

// Tables the import writes to, empty in a database that never held data. (The library's state row and the event
// log's rows count too: either means this database has been in use.)
const TABLES = ['queue_items', 'wishlist_items', 'downloads', 'jobs', 'events', 'library_albums', 'library_state', 'source_state', 'plugin_entries'];

/**
 * Imports the data dir of an earlier version (the JSON documents and line files before the database) once, at
 * start, before anything else uses the store: every record in one transaction, recorded in that same transaction
 * (`pre_sqlite_import`), then every old file moved to `<dir>/pre-sqlite/`. A failure before the commit throws a
 * PreSqliteImportError naming the file and line or record, with nothing imported and no old file touched; a crash
 * after the commit and before the move ends finishes the move at the next start, without importing twice. Metadata
 * caches (`cache/`) stay where they are. Undefined when `dir` holds no old file.
 */
export async function importPreSqliteData(dir: string, store: Store, log: Logger): Promise<PreSqliteImport | undefined> {
  const files = oldDataFilesIn(dir);
  if (files.length === 0) return undefined;
  const earlier = importRecordOf(store.db);
  if (earlier !== undefined) {
    log.warn({ dir, files: files.length, imported_at: earlier.imported_at }, 'the data of the earlier version was imported at an earlier start, which stopped before its old files were moved away; moving them now');
    const movedTo = await moveOldFiles(dir, files);
    return { counts: earlier.counts, importedNow: false, movedTo };
  }
  const nonEmpty = TABLES.filter((table) => store.db.prepare(`SELECT EXISTS (SELECT 1 FROM ${table})`).pluck().get() === 1);
  if (nonEmpty.length > 0) {
    throw new PreSqliteImportError(store.file, `its tables ${nonEmpty.join(', ')}`, `hold records already, so the files of an earlier version beside it (${files.join(', ')}) cannot be imported into it; move those files, or the database, out of storage.dir`);
  }
  log.info({ dir, files: files.length }, 'importing the data of an earlier version into the database');
  const started = performance.now();
  const counts = await store.change(() => importAll(dir, files, store, (message) => log.warn({ dir }, message)));
  const ms = Math.round(performance.now() - started);
  log.info({ dir, ms, ...counts }, 'imported the data of an earlier version');
  const movedTo = await moveOldFiles(dir, files);
  log.info({ dir: movedTo, files: files.length }, 'the files of the earlier version were moved here; they are kept, and may be deleted once the service runs well');
  return { counts, importedNow: true, movedTo };
}

/** The whole import, synchronous, inside the one change. */
function importAll(dir: string, files: readonly string[], store: Store, notice: (message: string) => void): ImportCounts {
  const counts = noImportCounts();
  let reading = join(dir, 'crateflow.json');
  try {
    const core = readOldCoreData(dir);
    importOldQueue(dir, core, new QueueTable(store), counts, notice);
    importOldWishlist(dir, core, new WishlistTable(store), counts, notice);
    importOldDownloads(dir, core, new DownloadsTable(store), counts, notice);
    importOldJobs(dir, core, new JobsTable(store), store.db, counts, notice);
    importOldEvents(core, new EventLogTable(store), counts);
    reading = join(dir, 'library.json');
    importOldLibrary(dir, new LibraryTable(store), counts);
    reading = join(dir, 'sources.json');
    importOldSources(dir, new SourceStateTable(store), counts);
    const plugins = new Set(files.map((name) => pluginOfDocument(name.replace(/\.changes$/, ''))).filter((name) => name !== undefined));
    for (const plugin of plugins) {
      reading = join(dir, `plugin-${plugin}.json`);
      importOldPluginDocument(dir, plugin, store, counts);
    }
  } catch (err: unknown) {
    if (err instanceof PreSqliteImportError) throw err;
    // A record the readers let through that the database refused (a value of a wrong type, say).
    throw new PreSqliteImportError(reading, 'a record', err instanceof Error ? err.message : String(err), { cause: err });
  }
  recordImport(store.db, { imported_at: new Date().toISOString(), counts });
  return counts;
}
