// Usage: node .ci/check-sqlite-driver.mjs      (with the Node about to run the tests first on PATH)
//
// The SQLite driver this Node loads (core/sqlite/sqlite-driver.ts: better-sqlite3 12 compiled by npm ci for Node
// 20, the ready-made Node-API build of 13 for Node 22 and later) opens a database, writes and reads it in a fresh
// process of this Node, or the run stops here rather than as a thousand failing tests.
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

const repo = resolve(import.meta.dirname, '..');
const script = `
  const { SQLITE_DRIVER_PACKAGE, SqliteDatabase } = await import('./core/sqlite/sqlite-driver.ts');
  const db = new SqliteDatabase(':memory:');
  db.exec('create table t (x)');
  db.prepare('insert into t values (?)').run(1);
  if (db.prepare('select count(*) n from t').get().n !== 1) process.exit(1);
  console.log(SQLITE_DRIVER_PACKAGE + ' (SQLite ' + db.prepare('select sqlite_version() v').get().v + ')');
  db.close();`;
const driver = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: repo, encoding: 'utf8' }).trim();
console.error(`check-sqlite-driver: Node ${process.version} opens a database through ${driver}`);
