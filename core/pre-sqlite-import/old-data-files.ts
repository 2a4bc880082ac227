import { readdirSync } from 'node:fs';

/** The folder of storage.dir the old files move to once imported. The service never deletes it. */
export const PRE_SQLITE_DIR = 'pre-sqlite';

export const CORE_DOCUMENT = 'crateflow.json';
export const DECIDED_HISTORY = 'queue-history.jsonl';
export const WAITING_WISHLIST = 'wishlist-waiting.jsonl';
export const RECORD_ARCHIVE = 'archive.jsonl';
export const LIBRARY_DOCUMENT = 'library.json';
export const LIBRARY_ALBUMS = 'library-albums.jsonl';
export const SOURCES_DOCUMENT = 'sources.json';

// A file of the old engine: its documents (`<name>.json`) and line files, each with what went beside it: a change
// log (.changes), a snapshot or catalogue being written (.tmp), a saved index (.idx).
const DATA_FILE = /^(crateflow\.json|library\.json|sources\.json|plugin-[a-z0-9][a-z0-9._-]*\.json|queue-history\.jsonl|wishlist-waiting\.jsonl|archive\.jsonl|library-albums\.jsonl)$/;
const BESIDE = /(\.changes|\.tmp|\.idx)$/;
const PLUGIN_DOCUMENT = /^plugin-([a-z0-9][a-z0-9._-]*)\.json$/;

/** Whether `name` (in storage.dir) is a file of the old engine. The lock, the database and `cache/` are not. */
export function isOldDataFile(name: string): boolean {
  return DATA_FILE.test(name.replace(BESIDE, ''));
}

/** The old engine's files in `dir`, in name order. */
export function oldDataFilesIn(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && isOldDataFile(entry.name))
    .map((entry) => entry.name)
    .sort();
}

/** The plugin instance a plugin document belongs to (`plugin-<name>.json`), if `name` is one. */
export function pluginOfDocument(name: string): string | undefined {
  return PLUGIN_DOCUMENT.exec(name)?.[1];
}
