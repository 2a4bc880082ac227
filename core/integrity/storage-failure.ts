/**
 * SQLite result codes that mean the disk or the file failed, not the statement: full (SQLITE_FULL), cannot write
 * (SQLITE_READONLY*, SQLITE_CANTOPEN), an I/O error (SQLITE_IOERR_*), or a damaged file (SQLITE_CORRUPT, SQLITE_NOTADB).
 * better-sqlite3 throws a SqliteError whose `code` is the extended code's name.
 */
const STORAGE_CODES = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|CORRUPT|NOTADB|PROTOCOL)/;

export function isStorageFailure(err: unknown): boolean {
  return err instanceof Error && 'code' in err && typeof err.code === 'string' && STORAGE_CODES.test(err.code);
}

export function isDamagedDatabase(err: unknown): boolean {
  return err instanceof Error && 'code' in err && typeof err.code === 'string' && /^SQLITE_(CORRUPT|NOTADB)/.test(err.code);
}
