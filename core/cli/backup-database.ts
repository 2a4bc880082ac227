import { existsSync } from 'node:fs';
import { link, open, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Database } from 'better-sqlite3';
import { SqliteDatabase } from '../sqlite/sqlite-driver.js';
import { ConfigError } from '../config/config-error.js';
import { configPathFrom, loadConfig } from '../config/load-config.js';
import { resolveConfigPaths } from '../config/resolve-config-paths.js';
import { DATABASE_FILE } from '../storage/store.js';

/** The tables whose row counts a backup reports: the records a user would miss (schema/schema-1.ts). */
const COUNTED_TABLES = ['queue_items', 'wishlist_items', 'downloads', 'jobs', 'events', 'library_albums', 'plugin_entries'] as const;

export interface BackupRequest {
  readonly target: string;
  readonly configPath?: string;
}

interface Output {
  write(text: string): unknown;
}

/**
 * `crateflow backup FILE`: an online copy of `<storage.dir>/crateflow.db` through SQLite's backup API, taken while
 * the service may be running. The database is opened read-only and the data dir's lock is not taken: in WAL mode a
 * reader neither waits for the service's writes nor holds them up, and the copy is one consistent snapshot (it is
 * made in a single step, so a write landing meanwhile cannot restart it). The copy goes to a hidden file beside
 * FILE and is checked (`PRAGMA quick_check`) before it is linked under FILE, so FILE is either absent or a whole,
 * checked copy, and an existing FILE is never replaced.
 *
 * Exit status: 0 copied; 1 the config cannot be read, there is no database, or the copy failed; 2 FILE exists.
 */
export async function runBackup(request: BackupRequest, env: NodeJS.ProcessEnv, stdout: Output, stderr: Output): Promise<number> {
  const fail = (code: number, message: string) => {
    stderr.write(`crateflow backup: ${message}\n`);
    return code;
  };
  const target = resolve(request.target);
  if (existsSync(target)) return fail(2, `${target} already exists; a backup never replaces a file: name a new one, or move that one away first`);
  if (!existsSync(dirname(target))) return fail(1, `the folder ${dirname(target)} does not exist; create it first`);

  const location = configPathFrom(request.configPath, env);
  const loaded = await loadConfig(location, env);
  if (loaded.problems.length > 0) return fail(1, new ConfigError(loaded.source, loaded.problems).message);
  const storageDir = resolveConfigPaths(loaded.config, dirname(location.path)).storage.dir;
  const source = join(storageDir, DATABASE_FILE);
  if (!existsSync(source)) return fail(1, `there is no database ${source} to copy (storage.dir is ${storageDir}, from ${loaded.source}); is that the config the service runs with (--config PATH)?`);

  // Dot-prefixed and named after this process, so neither a reader of FILE's folder nor a second backup takes it.
  const partial = join(dirname(target), `.${basename(target)}.${process.pid}.partial`);
  try {
    await copyDatabase(source, partial);
    const summary = checkCopy(partial);
    if (summary.problems.length > 0) return fail(1, `the copy of ${source} fails SQLite's quick check (${summary.problems.join('; ')}); the database itself may be damaged, nothing was written to ${target}`);
    await syncFile(partial);
    // A link, unlike a rename, refuses a FILE that appeared meanwhile rather than replacing it.
    const linked = await link(partial, target).then(
      () => true,
      (err: NodeJS.ErrnoException) => {
        if (err.code === 'EEXIST') return false;
        throw err;
      },
    );
    if (!linked) return fail(2, `${target} appeared while the copy was made; a backup never replaces a file: name a new one`);
    await syncFile(dirname(target));
    const { size } = await stat(target);
    stdout.write(`backup of ${source} written to ${target} (${formatSize(size)}), quick check ok\n`);
    const width = Math.max(...COUNTED_TABLES.map((table) => table.length));
    for (const [table, rows] of summary.counts) stdout.write(`  ${table.padEnd(width)}  ${rows === undefined ? 'no such table' : rows}\n`);
    return 0;
  } catch (err: unknown) {
    return fail(1, `could not copy ${source} to ${target}: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    // The link holds the copy under FILE; the temporary name goes, with any journal SQLite left beside it.
    await Promise.all(['', '-journal', '-wal', '-shm'].map((suffix) => rm(`${partial}${suffix}`, { force: true })));
  }
}

async function copyDatabase(source: string, into: string): Promise<void> {
  const db = new SqliteDatabase(source, { readonly: true, fileMustExist: true });
  try {
    // The service's own commits hold the write lock for a moment; wait for them as the service waits for us.
    db.pragma('busy_timeout = 5000');
    // Every remaining page in the next step: the whole copy is one read of one snapshot (the default, 100 pages
    // at a time, starts over whenever another process commits between two steps, which a busy service always does).
    await db.backup(into, { progress: () => 0x7fffffff });
  } finally {
    db.close();
  }
}

/**
 * Opens the copy: its quick check and the row count of each counted table (undefined: no such table). The copy
 * comes out in WAL mode like its source; it is switched to a rollback journal first, so that it is one
 * self-contained file with no -wal and -shm beside it (the service turns WAL back on when it opens a restored one).
 */
function checkCopy(file: string): { problems: string[]; counts: [string, number | undefined][] } {
  const db: Database = new SqliteDatabase(file, { fileMustExist: true });
  try {
    db.pragma('journal_mode = DELETE');
    const problems = (db.pragma('quick_check(5)') as { quick_check: string }[]).map((row) => row.quick_check).filter((line) => line !== 'ok');
    const exists = db.prepare<[string], { found: number }>("SELECT count(*) AS found FROM sqlite_schema WHERE type = 'table' AND name = ?");
    const counts = COUNTED_TABLES.map((table): [string, number | undefined] => {
      // Table names come from the constant list above, never from input; SQL cannot bind an identifier.
      const rows = exists.get(table)?.found ? (db.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n : undefined;
      return [table, rows];
    });
    return { problems, counts };
  } finally {
    db.close();
  }
}

/** fsync: the copy, then its folder entry, are on disk before "written" is printed. */
async function syncFile(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
