import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { SqliteDatabase } from '../../core/sqlite/sqlite-driver.js';
import { DATABASE_FILE } from '../../core/storage/store.js';

/** Runs `read` on a read-only connection to a data dir's database (committed data, WAL included), then closes it. */
export function readDatabase<T>(dataDir: string, read: (db: BetterSqlite3.Database) => T): T {
  const db = new SqliteDatabase(join(dataDir, DATABASE_FILE), { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** The records of a table as stored (each row's `record` JSON), in insertion order. */
export function readRecords<T = Record<string, unknown>>(dataDir: string, table: 'queue_items' | 'wishlist_items' | 'downloads' | 'jobs' | 'events', where = '1'): T[] {
  return readDatabase(dataDir, (db) => (db.prepare(`SELECT record FROM ${table} WHERE ${where} ORDER BY seq`).pluck().all() as string[]).map((record) => JSON.parse(record) as T));
}

/** The entries of a plugin's storage, as committed, in their order. */
export async function readPluginEntries(dataDir: string, plugin: string): Promise<Record<string, unknown>> {
  return readDatabase(dataDir, (db) => {
    const rows = db.prepare('SELECT key, value FROM plugin_entries WHERE plugin = ? ORDER BY seq').all(plugin) as { key: string; value: string }[];
    return Object.fromEntries(rows.map((row) => [row.key, JSON.parse(row.value) as unknown]));
  });
}
