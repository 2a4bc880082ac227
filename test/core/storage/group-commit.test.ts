import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import type BetterSqlite3 from 'better-sqlite3';
import { SqliteDatabase } from '../../../core/sqlite/sqlite-driver.js';
import { GroupCommit } from '../../../core/storage/group-commit.js';
import { ServiceUnavailableError } from '../../../core/errors/service-unavailable-error.js';

async function database(t: TestContext): Promise<BetterSqlite3.Database> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-group-commit-'));
  const db = new SqliteDatabase(join(dir, 'test.db'));
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE items (id TEXT PRIMARY KEY, n INTEGER NOT NULL CHECK (n >= 0))');
  t.after(async () => {
    db.close();
    await rm(dir, { recursive: true, force: true });
  });
  return db;
}

describe('GroupCommit', () => {
  it('commits the changes that wait at the same moment in one transaction, and resolves each with its own result', async (t) => {
    const db = await database(t);
    const commits = new GroupCommit(db);
    const insert = db.prepare('INSERT INTO items (id, n) VALUES (?, ?)');
    const results = await Promise.all(Array.from({ length: 32 }, (_, i) => commits.run(() => insert.run(`item-${i}`, i).changes)));
    assert.deepEqual(results, Array.from({ length: 32 }, () => 1));
    assert.equal(commits.committed, 1, 'one commit for 32 changes');
    assert.deepEqual(db.prepare('SELECT count(*) AS n FROM items').get(), { n: 32 });
  });

  it('undoes a change that throws alone: its caller gets its error, the others in the same transaction commit', async (t) => {
    const db = await database(t);
    const commits = new GroupCommit(db);
    const insert = db.prepare('INSERT INTO items (id, n) VALUES (?, ?)');
    const good = commits.run(() => insert.run('a', 1));
    const bad = commits.run(() => {
      insert.run('b', 2);
      throw new Error('the domain refused');
    });
    const constraint = commits.run(() => insert.run('c', -1));
    const alsoGood = commits.run(() => insert.run('d', 4));
    await good;
    await assert.rejects(bad, /the domain refused/);
    await assert.rejects(constraint, (err: Error & { code?: string }) => err.code === 'SQLITE_CONSTRAINT_CHECK');
    await alsoGood;
    assert.deepEqual(db.prepare('SELECT id FROM items ORDER BY id').all(), [{ id: 'a' }, { id: 'd' }]);
  });

  it('runs afterCommit actions only after the commit, and never for a change that was undone', async (t) => {
    const db = await database(t);
    const commits = new GroupCommit(db);
    const insert = db.prepare('INSERT INTO items (id, n) VALUES (?, ?)');
    const published: string[] = [];
    const seenAtPublish: number[] = [];
    const reader = new SqliteDatabase(db.name, { readonly: true });
    const count = reader.prepare('SELECT count(*) AS n FROM items');
    const kept = commits.run(({ afterCommit }) => {
      insert.run('kept', 1);
      afterCommit(() => {
        published.push('kept');
        seenAtPublish.push((count.get() as { n: number }).n);
      });
      assert.deepEqual(published, [], 'not before the commit');
    });
    const undone = commits.run(({ afterCommit }) => {
      afterCommit(() => published.push('undone'));
      throw new Error('no');
    });
    await kept;
    await assert.rejects(undone);
    reader.close();
    assert.deepEqual(published, ['kept']);
    assert.deepEqual(seenAtPublish, [1], 'another connection already sees the row when the action runs');
  });

  it('answers every change of a transaction the disk refused with a 503, and leaves none of them behind', async (t) => {
    const db = await database(t);
    const errors: unknown[] = [];
    const commits = new GroupCommit(db, (err) => errors.push(err));
    const insert = db.prepare('INSERT INTO items (id, n) VALUES (?, ?)');
    // SQLite refuses to grow the file past max_page_count with SQLITE_FULL, as it does on a full disk.
    const pages = Number(db.pragma('page_count', { simple: true }));
    db.pragma(`max_page_count = ${pages + 1}`);
    const big = 'x'.repeat(50_000);
    const first = commits.run(() => insert.run('small', 1));
    const full = commits.run(() => db.prepare('INSERT INTO items (id, n) VALUES (?, 2)').run(big));
    await assert.rejects(first, ServiceUnavailableError);
    await assert.rejects(full, ServiceUnavailableError);
    assert.equal(errors.length, 1);
    assert.deepEqual(db.prepare('SELECT count(*) AS n FROM items').get(), { n: 0 });
    db.pragma('max_page_count = 1073741823');
    await commits.run(() => insert.run('after', 3));
    assert.deepEqual(db.prepare('SELECT id FROM items').all(), [{ id: 'after' }], 'the next change commits once there is room');
  });

  it('flushes what waits at once when asked (shutdown), without waiting for the next turn', async (t) => {
    const db = await database(t);
    const commits = new GroupCommit(db);
    const pending = commits.run(() => db.prepare("INSERT INTO items (id, n) VALUES ('x', 1)").run());
    commits.flush();
    assert.deepEqual(db.prepare('SELECT id FROM items').all(), [{ id: 'x' }]);
    await pending;
  });
});

describe('GroupCommit: a change started inside a running change', () => {
  it('joins its transaction: no commit of its own, settled only once that transaction is durable', async (t) => {
    const db = await database(t);
    const commits = new GroupCommit(db);
    const insert = db.prepare('INSERT INTO items (id, n) VALUES (?, ?)');
    let inner: Promise<unknown> | undefined;
    let innerSettled = false;
    const outer = commits.run(() => {
      insert.run('outer', 1);
      inner = commits.run(() => insert.run('inner', 2)).then(() => {
        innerSettled = true;
      });
      assert.equal(innerSettled, false);
    });
    await outer;
    await inner;
    assert.equal(commits.committed, 1, 'one transaction');
    assert.deepEqual(db.prepare('SELECT id FROM items ORDER BY id').all(), [{ id: 'inner' }, { id: 'outer' }]);
  });

  it('is undone with the change around it, and its caller is told', async (t) => {
    const db = await database(t);
    const commits = new GroupCommit(db);
    const insert = db.prepare('INSERT INTO items (id, n) VALUES (?, ?)');
    let inner: Promise<unknown> | undefined;
    const outer = commits.run(() => {
      inner = commits.run(() => insert.run('inner', 2));
      throw new Error('the outer change fails after it');
    });
    await assert.rejects(outer, /the outer change fails/);
    await assert.rejects(inner ?? Promise.resolve(), /undone with the change it was made in/);
    assert.deepEqual(db.prepare('SELECT id FROM items').all(), []);
  });

  it('that fails is undone alone: the change around it commits', async (t) => {
    const db = await database(t);
    const commits = new GroupCommit(db);
    const insert = db.prepare('INSERT INTO items (id, n) VALUES (?, ?)');
    let inner: Promise<unknown> | undefined;
    await commits.run(() => {
      insert.run('outer', 1);
      inner = commits.run(() => {
        insert.run('inner', 2);
        insert.run('negative', -1); // the CHECK refuses it
      });
      inner.catch(() => undefined);
    });
    await assert.rejects(inner ?? Promise.resolve(), /CHECK constraint failed/);
    assert.deepEqual(db.prepare('SELECT id FROM items').all(), [{ id: 'outer' }]);
  });

  it('fails with the transaction when the disk refuses it, even if the change around it catches the error', async (t) => {
    const db = await database(t);
    const commits = new GroupCommit(db);
    const pages = Number(db.pragma('page_count', { simple: true }));
    db.pragma(`max_page_count = ${pages + 1}`);
    let inner: Promise<unknown> | undefined;
    const outer = commits.run(() => {
      db.prepare("INSERT INTO items (id, n) VALUES ('outer', 1)").run();
      inner = commits.run(() => db.prepare('INSERT INTO items (id, n) VALUES (?, 2)').run('x'.repeat(50_000)));
      inner.catch(() => undefined);
    });
    await assert.rejects(outer, ServiceUnavailableError);
    await assert.rejects(inner ?? Promise.resolve());
    db.pragma('max_page_count = 1073741823');
    assert.deepEqual(db.prepare('SELECT id FROM items').all(), [], 'nothing of it is left');
  });
});

describe('GroupCommit.runLazily', () => {
  it('joins the next commit someone waits for, adding no transaction of its own', async (t) => {
    const db = await database(t);
    const commits = new GroupCommit(db);
    const insert = db.prepare('INSERT INTO items (id, n) VALUES (?, ?)');
    const lazy = commits.run(() => insert.run('urgent', 1));
    const late = commits.runLazily(() => insert.run('lazy', 2), 60_000);
    await Promise.all([lazy, late]);
    assert.equal(commits.committed, 1);
    assert.deepEqual(db.prepare('SELECT id FROM items ORDER BY id').all(), [{ id: 'lazy' }, { id: 'urgent' }]);
  });

  it('commits alone after its delay when nothing else comes (real time)', async (t) => {
    const db = await database(t);
    const commits = new GroupCommit(db);
    const startedAt = Date.now();
    await commits.runLazily(() => db.prepare("INSERT INTO items (id, n) VALUES ('alone', 1)").run(), 50);
    assert.ok(Date.now() - startedAt >= 45, 'not before its delay');
    assert.deepEqual(db.prepare('SELECT id FROM items').all(), [{ id: 'alone' }]);
  });
});
