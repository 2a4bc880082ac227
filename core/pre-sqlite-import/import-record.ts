import type { Database } from 'better-sqlite3';
import type { ImportCounts } from './import-counts.js';

/** What the database remembers of the import of an earlier data dir (`pre_sqlite_import`, one row at most). */
export interface ImportRecord {
  imported_at: string;
  counts: ImportCounts;
}

/** The import, if one was committed to this database. */
export function importRecordOf(db: Database): ImportRecord | undefined {
  const row = db.prepare<[], { imported_at: string; counts: string }>('SELECT imported_at, counts FROM pre_sqlite_import WHERE only = 1').get();
  return row === undefined ? undefined : { imported_at: row.imported_at, counts: JSON.parse(row.counts) as ImportCounts };
}

/** Records the import (inside its transaction). */
export function recordImport(db: Database, record: ImportRecord): void {
  db.prepare('INSERT INTO pre_sqlite_import (only, imported_at, counts) VALUES (1, ?, ?)').run(record.imported_at, JSON.stringify(record.counts));
}
