import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonValue, LibraryAlbum } from '@crateflow/sdk';
import type { Store } from '../storage/store.js';
import type { LibraryTable } from '../library/library-table.js';
import { SqlPluginStorage } from '../plugins/sql-plugin-storage.js';
import type { SourceRecord, SourceStateTable } from '../sources/source-state-table.js';
import type { ImportCounts } from './import-counts.js';
import { LIBRARY_ALBUMS, LIBRARY_DOCUMENT, SOURCES_DOCUMENT } from './old-data-files.js';
import { eachLineOf } from './old-line-file.js';
import { checkedRecord } from './old-records.js';
import { isObject, readOldDocument } from './read-old-document.js';
import { PreSqliteImportError } from './pre-sqlite-import-error.js';

/**
 * The library catalogue (inside the import's change): `library.json` says when the last sync ran, and the albums
 * are the lines of `library-albums.jsonl` (`mbids <TAB> name keys <TAB> album`; the keys are made again by today's
 * rules) or, in earlier versions, the document's `albums` array. No sync ever ran: nothing to import.
 */
export function importOldLibrary(dir: string, library: LibraryTable, counts: ImportCounts): void {
  const documentFile = join(dir, LIBRARY_DOCUMENT);
  const document = readOldDocument(documentFile) ?? {};
  const albumsFile = join(dir, LIBRARY_ALBUMS);
  const albums: LibraryAlbum[] = [];
  const size = sizeOf(albumsFile);
  if (Array.isArray(document.albums) && document.albums.length > 0) {
    // Albums still in the document: the version that moved them to the file did so at its start, over any file.
    for (const [i, album] of document.albums.entries()) albums.push(checkedRecord('album', album, documentFile, `albums[${i}]`));
  } else if (size !== undefined) {
    // The catalogue was only ever replaced whole (renamed into place), so all of it counts.
    eachLineOf({ path: albumsFile, acknowledged: size, keyFields: 2 }, (line) => albums.push(checkedRecord('album', line.record(), albumsFile, `line ${line.number}`)));
  }
  const syncedAt = document.synced_at;
  if (syncedAt !== undefined && syncedAt !== null && typeof syncedAt !== 'string') throw new PreSqliteImportError(documentFile, '"synced_at"', 'not a time');
  if (albums.length === 0 && typeof syncedAt !== 'string') return;
  // An earlier version moving its document's albums to the file did the same for a catalogue without a sync time.
  library.replaceInChange(albums, syncedAt ?? new Date(0).toISOString());
  counts.library_albums = albums.length;
}

function sizeOf(path: string): number | undefined {
  try {
    return statSync(path).size;
  } catch (err: unknown) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** `sources.json`: what the core remembered of each discovery source, by name. */
export function importOldSources(dir: string, sources: SourceStateTable, counts: ImportCounts): void {
  const file = join(dir, SOURCES_DOCUMENT);
  const records = readOldDocument(file)?.sources;
  if (records === undefined) return;
  if (!isObject(records)) throw new PreSqliteImportError(file, '"sources"', 'not a collection of records');
  for (const [name, record] of Object.entries(records)) {
    if (!isObject(record)) throw new PreSqliteImportError(file, `sources record "${name}"`, 'not an object');
    sources.putInChange(name, record as SourceRecord);
    counts.sources++;
  }
}

/** `plugin-<name>.json`: one plugin instance's entries, in the order it stored them. */
export function importOldPluginDocument(dir: string, plugin: string, store: Store, counts: ImportCounts): void {
  const file = join(dir, `plugin-${plugin}.json`);
  const entries = readOldDocument(file)?.entries;
  if (entries === undefined) return;
  if (!isObject(entries)) throw new PreSqliteImportError(file, '"entries"', 'not a collection of entries');
  const storage = new SqlPluginStorage(store, plugin);
  for (const [key, value] of Object.entries(entries)) {
    if (value === undefined) continue;
    storage.setInChange(key, value as JsonValue);
    counts.plugin_entries++;
  }
}
