import { Worker } from 'node:worker_threads';
import type { Database } from 'better-sqlite3';
import { DamagedDatabaseError } from './damaged-database-error.js';
import { isDamagedDatabase } from './storage-failure.js';
import { sqliteDriverPath } from '../sqlite/sqlite-driver.js';

/**
 * Up to this size the quick check runs at open, before anything reads or writes (a few milliseconds per MiB). A
 * larger database opens at once and is checked beside the running service (see checkInBackground): reading a
 * gigabyte takes seconds, and start-up should not.
 */
export const CHECK_AT_OPEN_MAX_BYTES = 64 * 1024 * 1024;

/**
 * SQLite's quick check: every page and record well formed (no index-to-table cross check, which would read the whole
 * file twice). Throws DamagedDatabaseError naming what it found.
 */
export function checkIntegrity(db: Database, file: string): void {
  const damage = damageOf((db.pragma('quick_check(5)') as { quick_check: string }[]).map((row) => row.quick_check), file);
  if (damage) throw damage;
}

/**
 * The quick check on a connection of its own in a worker thread, so the service answers meanwhile. Resolves with
 * the damage found (a DamagedDatabaseError), or undefined for a sound file.
 */
export function checkInBackground(file: string): Promise<DamagedDatabaseError | undefined> {
  // Code, not a file: the bundled service (dist/crateflow.code.cjs) is one file, and the driver stays an external module.
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const Database = require(workerData.driver);
    let db;
    try {
      db = new Database(workerData.file, { readonly: true, fileMustExist: true });
      // The check reads each page once: a cache as large as the service's own (16 MB) would only add to its memory.
      db.pragma('cache_size = -1024');
      parentPort.postMessage({ problems: db.pragma('quick_check(5)').map((row) => row.quick_check) });
    } catch (err) {
      // A damaged file can make the check itself fail (SQLITE_CORRUPT): that is its finding too.
      parentPort.postMessage({ failed: { code: String(err && err.code), message: String(err && err.message) } });
    } finally {
      if (db) db.close();
    }`;
  return new Promise((resolve, reject) => {
    // By path: code run with `eval` resolves modules from the working directory, which may be anywhere.
    const driver = sqliteDriverPath();
    // Its JavaScript is a few lines: a small heap keeps the thread's memory beside the service's small too.
    const worker = new Worker(code, { eval: true, workerData: { file, driver }, resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 1 } });
    worker.unref();
    worker.once('message', (answer: { problems?: string[]; failed?: { code: string; message: string } }) => {
      if (answer.failed) {
        const failure = Object.assign(new Error(answer.failed.message), { code: answer.failed.code });
        if (isDamagedDatabase(failure)) resolve(new DamagedDatabaseError(file, failure.message, { cause: failure }));
        else reject(failure);
        return;
      }
      resolve(damageOf(answer.problems ?? [], file));
    });
    worker.once('error', reject);
  });
}

/** What the quick check's lines say: nothing but "ok", or the damage they name. */
function damageOf(problems: readonly string[], file: string): DamagedDatabaseError | undefined {
  const found = problems.filter((line) => line !== 'ok');
  return found.length > 0 ? new DamagedDatabaseError(file, found.join('; ')) : undefined;
}
