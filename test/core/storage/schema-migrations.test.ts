import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import type BetterSqlite3 from 'better-sqlite3';
import { SqliteDatabase } from '../../../core/sqlite/sqlite-driver.js';
import { QueueTable } from '../../../core/queue/queue-table.js';
import { MIGRATIONS } from '../../../core/storage/schema/migrations.js';
import { migrate, SCHEMA_VERSION } from '../../../core/storage/schema-migrations.js';
import { DATABASE_FILE, Store } from '../../../core/storage/store.js';

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-migrations-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const indexNames = (db: BetterSqlite3.Database) => db.prepare("SELECT name FROM sqlite_master WHERE type = 'index'").pluck().all() as string[];

describe('schema migrations', () => {
  it('brings a database of the first released schema up to date at open, keeping its rows', async (t) => {
    const dir = await tempDir(t);
    const old = new SqliteDatabase(join(dir, DATABASE_FILE));
    migrate(old, 'crateflow.db', MIGRATIONS.slice(0, 1));
    old.prepare(`INSERT INTO queue_items (id, status, source, added_at, year, name_sort, search_text, name_key, record) VALUES ('q1', 'pending', 'test', '2026-11-01T00:00:00.000Z', 0, 'a', ' a ', 'a', ?)`)
      .run(JSON.stringify({ id: 'q1', type: 'album', artist: 'A', album: 'B', source: 'test', status: 'pending', added_at: '2026-11-01T00:00:00.000Z' }));
    old.close();

    const store = await Store.open(dir, { exclusive: true });
    t.after(() => store.close());
    assert.equal(store.db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
    assert.ok(SCHEMA_VERSION >= 2);
    assert.ok(indexNames(store.db).includes('queue_pending_without_mbid'));
    assert.equal(new QueueTable(store).nextWithoutMbid(undefined)?.id, 'q1', 'the row is there, and found by the walk');
  });

  it('walks pending items without an mbid on their own index, never over the others', async (t) => {
    const store = await Store.open(await tempDir(t), { exclusive: true });
    t.after(() => store.close());
    // The plan SQLite chooses for both steps of the walk: its own partial index, entered at the position.
    for (const sql of [
      "SELECT record FROM queue_items WHERE status = 'pending' AND mbid IS NULL ORDER BY added_at, id LIMIT 1",
      "SELECT record FROM queue_items WHERE status = 'pending' AND mbid IS NULL AND (added_at, id) > ('x', 'y') ORDER BY added_at, id LIMIT 1",
    ]) {
      const plan = (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((row) => row.detail).join('; ');
      assert.match(plan, /USING INDEX queue_pending_without_mbid/, plan);
      assert.doesNotMatch(plan, /TEMP B-TREE/, `no sort: ${plan}`);
    }
  });

  it('leaves a database as it was when a step fails, so the next start runs that step again whole', async (t) => {
    const dir = await tempDir(t);
    const db = new SqliteDatabase(join(dir, DATABASE_FILE));
    t.after(() => db.close());
    const failing = [...MIGRATIONS.slice(0, 1), { version: 2, name: 'fails half-way', sql: 'CREATE TABLE half (x); SELECT no_such_function();' }];
    assert.throws(() => migrate(db, 'crateflow.db', failing), /no_such_function/);
    assert.equal(db.pragma('user_version', { simple: true }), 1, 'the first step stays applied');
    assert.equal(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'half'").pluck().get(), 0, 'nothing of the failed step');
    assert.throws(() => migrate(db, 'crateflow.db', [{ version: 3, name: 'misnumbered', sql: '' }]), /numbered 3, expected 1/);
  });
});
