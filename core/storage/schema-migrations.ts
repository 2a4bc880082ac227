import type { Database } from 'better-sqlite3';
import { MIGRATIONS } from './schema/migrations.js';

/** One numbered step of the schema; applied once, in order, each inside the transaction that records it. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** The database was written by a newer Crateflow: its schema is unknown here, so nothing may touch it. */
export class NewerDatabaseError extends Error {
  constructor(readonly file: string, readonly found: number, readonly known: number) {
    super(`${file} was written by a newer Crateflow (schema version ${found}; this one knows up to ${known}): run that version again, or restore a backup made by this one (see the README's "Backup and restore")`);
    this.name = 'NewerDatabaseError';
  }
}

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the schema up to SCHEMA_VERSION. The version is SQLite's `user_version`, set in the same transaction as the
 * step it counts, so a crash mid-step leaves the previous version and the step runs again whole at the next start.
 */
export function migrate(db: Database, file: string, migrations: readonly Migration[] = MIGRATIONS): number {
  migrations.forEach((migration, i) => {
    if (migration.version !== i + 1) throw new Error(`migration ${migration.name} is numbered ${migration.version}, expected ${i + 1}`);
  });
  const current = Number(db.pragma('user_version', { simple: true }));
  if (current > migrations.length) throw new NewerDatabaseError(file, current, migrations.length);
  for (const migration of migrations.slice(current)) {
    db.transaction(() => {
      db.exec(migration.sql);
      // A pragma cannot take a bound parameter; the version is an integer from this file.
      db.pragma(`user_version = ${migration.version}`);
    }).immediate();
  }
  return migrations.length - current;
}
