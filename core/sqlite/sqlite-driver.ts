import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * Which build of better-sqlite3 this Node loads. The 12.x line is compiled at install against the running Node's
 * headers, and Node 24.19 and later headers make every addon object register an environment cleanup hook that its
 * destructor removes: a statement collected at exit, or after a worker thread ended, then aborts the process
 * (nodejs/node#65446; better-sqlite3 12 will not change). The 13.x line is a Node-API build shipped ready-made for
 * each platform, free of that, but needs Node-API 10, which Node 20 lacks (it crashes there). So Node 20 loads 12.x,
 * whose addon from Node 20's headers is sound, and Node 22 and later load 13.x (package alias `better-sqlite3-napi`).
 * Both keep the same API and the same file format.
 */
export const SQLITE_DRIVER_PACKAGE = Number(process.versions.node.split('.')[0]) >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3';

const requireHere = createRequire(import.meta.url);

/** The driver's Database class, loaded from SQLITE_DRIVER_PACKAGE. */
export const SqliteDatabase = requireHere(SQLITE_DRIVER_PACKAGE) as typeof BetterSqlite3;

/** Where the driver's entry module is: code run elsewhere (a worker thread, a child process) loads the same one. */
export function sqliteDriverPath(): string {
  return requireHere.resolve(SQLITE_DRIVER_PACKAGE);
}
