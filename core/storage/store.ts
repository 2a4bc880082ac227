import { statSync } from 'node:fs';
import { access, constants, mkdir } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { Database } from 'better-sqlite3';
import { SqliteDatabase } from '../sqlite/sqlite-driver.js';
import { DataDirLock } from './data-dir-lock.js';
import { DamagedDatabaseError } from '../integrity/damaged-database-error.js';
import { GroupCommit, type Change } from './group-commit.js';
import { migrate } from './schema-migrations.js';
import { isDamagedDatabase, isStorageFailure } from '../integrity/storage-failure.js';
import { findWalDamage } from '../integrity/wal-check.js';
import { CHECK_AT_OPEN_MAX_BYTES, checkInBackground, checkIntegrity } from '../integrity/integrity-check.js';

export const DATABASE_FILE = 'crateflow.db';

export interface StoreOptions {
  /** Claim the dir for this process (the service does; a backup or a test that only reads need not). */
  exclusive?: boolean;
  /** Told about failures nobody awaits (an afterCommit action that threw). */
  onError?: (err: unknown) => void;
  /** Databases up to this size are checked at open, larger ones in the background (default CHECK_AT_OPEN_MAX_BYTES). */
  checkAtOpenMaxBytes?: number;
}

/**
 * The one database of the service, `crateflow.db` in `storage.dir`. WAL mode with `synchronous = FULL`: each commit
 * writes its pages to the WAL and fsyncs it once before the commit returns, so an acknowledged change survives kill
 * -9 and a power cut alike (NORMAL would survive kill -9 but could lose the last commits to a power cut, which the
 * old engine never did). Group commit (GroupCommit) keeps that one fsync shared by every change waiting at the time.
 */
export class Store {
  readonly commits: GroupCommit;
  /**
   * The quick check of a database too large to check at open: settles once it has run beside the service, with
   * the damage it found (the owner stops the service then) or undefined. Undefined at once for one checked at open.
   */
  readonly integrity: Promise<DamagedDatabaseError | undefined>;

  private dirChecked: { at: number; problem: string | undefined } = { at: Number.NEGATIVE_INFINITY, problem: undefined };

  private constructor(readonly dir: string, readonly file: string, readonly db: Database, private readonly lock: DataDirLock | undefined, onError: (err: unknown) => void, checkedAtOpen: boolean) {
    this.commits = new GroupCommit(db, onError);
    this.integrity = checkedAtOpen ? Promise.resolve(undefined) : checkInBackground(file);
  }

  static async open(dir: string, options: StoreOptions = {}): Promise<Store> {
    const absolute = resolve(dir);
    await mkdir(absolute, { recursive: true });
    const lock = options.exclusive ? await DataDirLock.acquire(absolute) : undefined;
    const file = join(absolute, DATABASE_FILE);
    try {
      const checkAtOpen = bytesOf(file) + bytesOf(`${file}-wal`) <= (options.checkAtOpenMaxBytes ?? CHECK_AT_OPEN_MAX_BYTES);
      const db = openDatabase(file, checkAtOpen);
      return new Store(absolute, file, db, lock, options.onError ?? (() => undefined), checkAtOpen);
    } catch (err: unknown) {
      await lock?.release();
      throw err;
    }
  }

  /** Runs `change` in the next group commit; resolves once it is on disk (see GroupCommit). */
  change<T>(change: Change<T>): Promise<T> {
    return this.commits.run(change);
  }

  /** Runs `change` with the next commit, at the latest after `maxDelayMs` (see GroupCommit.runLazily). */
  changeLazily<T>(change: Change<T>, maxDelayMs: number): Promise<T> {
    return this.commits.runLazily(change, maxDelayMs);
  }

  /**
   * Why the store cannot be written right now, or undefined when it can: the last commit failed, or the data dir is
   * not writable (checked at most once a second: /health asks on every probe).
   */
  async writeProblem(now = Date.now()): Promise<string | undefined> {
    const failed = this.commits.lastError;
    if (failed) return `last write failed: ${failed.message}`;
    if (now - this.dirChecked.at < 1000) return this.dirChecked.problem;
    try {
      await access(this.dir, constants.W_OK);
      this.dirChecked = { at: now, problem: undefined };
    } catch (err: unknown) {
      this.dirChecked = { at: now, problem: `data dir ${this.dir} is not writable: ${err instanceof Error ? err.message : String(err)}` };
    }
    return this.dirChecked.problem;
  }

  /** An online copy of the database into `target` while the service runs (SQLite's backup API). */
  async backup(target: string): Promise<void> {
    await this.db.backup(target);
  }

  /** Commits what waits, folds the WAL into the database and closes it (at shutdown). */
  async close(): Promise<void> {
    this.commits.flush();
    try {
      this.db.pragma('optimize');
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    } catch (err: unknown) {
      // On a full disk the checkpoint cannot write: every commit is in the WAL, which the next open replays.
      if (!isStorageFailure(err)) throw err;
    } finally {
      this.db.close();
      await this.lock?.release();
    }
  }
}

function openDatabase(file: string, checkAtOpen: boolean): Database {
  // Before SQLite reads the log: its recovery would drop what follows a damaged frame without a word.
  const walDamage = findWalDamage(`${file}-wal`);
  if (walDamage) {
    throw new DamagedDatabaseError(file, `frame ${walDamage.frame} of its write-ahead log ${basename(file)}-wal is damaged, and ${walDamage.committedAfter} committed transaction(s) follow it, which SQLite would drop`);
  }
  let db: Database | undefined;
  try {
    db = new SqliteDatabase(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    // A backup run by another process holds a read lock for a moment.
    db.pragma('busy_timeout = 5000');
    // Reading the schema checks the header and the first pages of any database, large or small.
    db.pragma('schema_version');
    if (checkAtOpen) checkIntegrity(db, file);
    migrate(db, file);
    return db;
  } catch (err: unknown) {
    db?.close();
    if (isDamagedDatabase(err)) throw new DamagedDatabaseError(file, err instanceof Error ? err.message : String(err), { cause: err });
    throw err;
  }
}

function bytesOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
