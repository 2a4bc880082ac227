import assert from 'node:assert/strict';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { DamagedDatabaseError } from '../../../core/integrity/damaged-database-error.js';
import { DATABASE_FILE, Store } from '../../../core/storage/store.js';

const PAGE = 4096;

/** A stopped data dir whose database holds `rows` rows of 200 bytes in a table of its own (many leaf pages). */
async function filledDir(t: TestContext, rows: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-integrity-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const store = await Store.open(dir);
  store.db.exec('CREATE TABLE filler (n INTEGER PRIMARY KEY, text TEXT NOT NULL)');
  const insert = store.db.prepare('INSERT INTO filler (n, text) VALUES (?, ?)');
  store.db.transaction(() => {
    for (let n = 1; n <= rows; n++) insert.run(n, `${n}`.padEnd(200, 'x'));
  })();
  await store.close();
  return dir;
}

async function damagePage(dir: string, page: number): Promise<void> {
  const handle = await open(join(dir, DATABASE_FILE), 'r+');
  try {
    await handle.write(Buffer.alloc(PAGE, 0xab), 0, PAGE, (page - 1) * PAGE);
  } finally {
    await handle.close();
  }
}

describe('the integrity check of a database too large to check at open', () => {
  it('opens at once and finds nothing in a sound file', async (t) => {
    const dir = await filledDir(t, 5000);
    const store = await Store.open(dir, { checkAtOpenMaxBytes: 0 });
    t.after(() => store.close());
    assert.equal(await store.integrity, undefined);
  });

  it('opens, then reports a damaged page found beside the running store, naming the file', async (t) => {
    const dir = await filledDir(t, 5000);
    // A leaf page of the filler table, far from the schema pages that every open reads.
    await damagePage(dir, 200);
    const store = await Store.open(dir, { checkAtOpenMaxBytes: 0 });
    t.after(() => store.close());
    const damage = await store.integrity;
    assert.ok(damage instanceof DamagedDatabaseError, String(damage));
    assert.ok(damage.message.includes(join(dir, DATABASE_FILE)), damage.message);
  });

  it('refuses the same damaged file at open when it is small enough to check first', async (t) => {
    const dir = await filledDir(t, 5000);
    await damagePage(dir, 200);
    await assert.rejects(Store.open(dir), DamagedDatabaseError);
  });
});
