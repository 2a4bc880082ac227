import assert from 'node:assert/strict';
import { copyFile, mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import type BetterSqlite3 from 'better-sqlite3';
import { SqliteDatabase } from '../../../core/sqlite/sqlite-driver.js';
import { DamagedDatabaseError } from '../../../core/integrity/damaged-database-error.js';
import { Store, DATABASE_FILE } from '../../../core/storage/store.js';
import { findWalDamage } from '../../../core/integrity/wal-check.js';

const PAGE = 4096;
const FRAME = 24 + PAGE;

/**
 * A data dir whose database has `commits` transactions still in its write-ahead log, as a killed process leaves it:
 * the files are copied while the writer is open, so nothing is checkpointed.
 */
async function dirWithLog(t: TestContext, commits: number): Promise<{ dir: string; wal: string }> {
  const source = await mkdtemp(join(tmpdir(), 'crateflow-wal-source-'));
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-wal-'));
  t.after(() => Promise.all([rm(source, { recursive: true, force: true }), rm(dir, { recursive: true, force: true })]));
  const db = new SqliteDatabase(join(source, DATABASE_FILE));
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE notes (n INTEGER PRIMARY KEY, text TEXT NOT NULL)');
  db.pragma('wal_checkpoint(TRUNCATE)');
  for (let n = 1; n <= commits; n++) db.prepare('INSERT INTO notes (n, text) VALUES (?, ?)').run(n, 'x'.repeat(100));
  await copyFile(join(source, DATABASE_FILE), join(dir, DATABASE_FILE));
  await copyFile(join(source, `${DATABASE_FILE}-wal`), join(dir, `${DATABASE_FILE}-wal`));
  db.close();
  return { dir, wal: join(dir, `${DATABASE_FILE}-wal`) };
}

/** Flips bytes in the middle of frame `frame` (1-based)'s page. */
async function damageFrame(wal: string, frame: number): Promise<void> {
  const handle = await open(wal, 'r+');
  try {
    await handle.write(Buffer.alloc(16, 0x5a), 0, 16, 32 + (frame - 1) * FRAME + 24 + PAGE / 2);
  } finally {
    await handle.close();
  }
}

describe('findWalDamage', () => {
  it('finds nothing in an intact log, nor in none at all', async (t) => {
    const { dir, wal } = await dirWithLog(t, 3);
    assert.equal((await stat(wal)).size, 32 + 3 * FRAME, 'one frame per commit');
    assert.equal(findWalDamage(wal), undefined);
    assert.equal(findWalDamage(join(dir, 'missing-wal')), undefined);
  });

  it('names a damaged frame that committed transactions follow', async (t) => {
    const { wal } = await dirWithLog(t, 3);
    await damageFrame(wal, 1);
    assert.deepEqual(findWalDamage(wal), { frame: 1, committedAfter: 2 });
  });

  it('leaves a damaged last frame to SQLite: it looks like a torn write, which was never acknowledged', async (t) => {
    const { wal } = await dirWithLog(t, 3);
    await damageFrame(wal, 3);
    assert.equal(findWalDamage(wal), undefined);
  });
});

describe('Store.open on a damaged write-ahead log', () => {
  it('refuses the dir, naming the frame and the file, and leaves both files as they were', async (t) => {
    const { dir, wal } = await dirWithLog(t, 3);
    await damageFrame(wal, 2);
    const before = (await stat(wal)).mtimeMs;
    await assert.rejects(Store.open(dir), (err: unknown) => {
      assert.ok(err instanceof DamagedDatabaseError);
      assert.match(err.message, /frame 2 of its write-ahead log crateflow\.db-wal is damaged, and 1 committed transaction\(s\) follow it/);
      assert.match(err.message, /copy your latest backup/);
      return true;
    });
    assert.equal((await stat(wal)).mtimeMs, before);
  });

  it('opens an intact log and keeps every commit in it', async (t) => {
    const { dir } = await dirWithLog(t, 3);
    const store = await Store.open(dir);
    t.after(() => store.close());
    assert.equal(store.db.prepare('SELECT count(*) FROM notes').pluck().get(), 3);
  });
});
