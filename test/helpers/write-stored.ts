import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { SqliteDatabase } from '../../core/sqlite/sqlite-driver.js';
import { DATABASE_FILE } from '../../core/storage/store.js';

/**
 * Runs `change` in one transaction on a stopped service's database: to set up what a crash or an older version
 * leaves behind. Never while the service runs (it holds the data dir).
 */
export function changeDatabase<T>(dataDir: string, change: (db: BetterSqlite3.Database) => T): T {
  const db = new SqliteDatabase(join(dataDir, DATABASE_FILE), { fileMustExist: true });
  try {
    return db.transaction(() => change(db))();
  } finally {
    db.close();
  }
}
