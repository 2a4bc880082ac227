// The sdk's PluginStorage on the store: a plugin's entries in plugin_entries, in insertion order.
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonValue } from '@crateflow/sdk';
import { SqlPluginStorage } from '../../../core/plugins/sql-plugin-storage.js';
import { ServiceUnavailableError } from '../../../core/errors/service-unavailable-error.js';
import { Store } from '../../../core/storage/store.js';

async function dataDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-plugin-storage-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** The store of `dir`, closed after the test unless closed before. */
async function openStore(t: TestContext, dir: string): Promise<{ store: Store; close(): Promise<void> }> {
  const store = await Store.open(dir, { exclusive: true });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await store.close();
  };
  t.after(close);
  return { store, close };
}

const keysOf = (storage: SqlPluginStorage, prefix?: string) => [...storage.entries(prefix)].map(([key]) => key);

describe('SqlPluginStorage', () => {
  it('lists entries in insertion order: an update keeps its place, a key deleted and set again moves to the end', async (t) => {
    const { store } = await openStore(t, await dataDir(t));
    const storage = new SqlPluginStorage(store, 'webhooks');
    for (const key of ['c', 'a', 'b', 'd']) await storage.set(key, key);
    await storage.set('a', 'changed');
    assert.deepEqual([...storage.entries()], [['c', 'c'], ['a', 'changed'], ['b', 'b'], ['d', 'd']]);
    await storage.delete('c');
    await storage.set('c', 'again');
    assert.deepEqual(keysOf(storage), ['a', 'b', 'd', 'c']);
    // The last one deleted and another set: still after every key that stayed.
    await storage.delete('c');
    await storage.set('e', 'e');
    assert.deepEqual(keysOf(storage), ['a', 'b', 'd', 'e']);
  });

  it('applies writes not awaited one by one in the order they were made, and shows them once they resolve', async (t) => {
    const { store } = await openStore(t, await dataDir(t));
    const storage = new SqlPluginStorage(store, 'blackhole');
    const writes = [storage.set('x', 1), storage.set('y', 1), storage.delete('x'), storage.set('x', 2), storage.set('y', 2), storage.delete('absent')];
    assert.equal(storage.get('x'), undefined, 'a read sees what is committed');
    await Promise.all(writes);
    assert.deepEqual([...storage.entries()], [['y', 2], ['x', 2]]);
  });

  it('scans a prefix exactly, whatever characters it holds', async (t) => {
    const { store } = await openStore(t, await dataDir(t));
    const storage = new SqlPluginStorage(store, 'source-picks');
    const keys = [
      'session/1', 'session/2', 'sessions', 'session', 'session0', 'Session/3',
      '100%/a', '100%b', '100x/c', 'a_b/1', 'axb/1', 'a_b',
      'é/1', 'é', 'e/1', 'ée', '\uffff/1', '\uffff\uffff', '😀/1', '😀😀', '\u{10ffff}', '\u{10ffff}\u{10ffff}/x',
      'tail/\uffff', 'tail/😀', 'tail/\u{10ffff}', 'tailx', 'tail/\u0000', '\\/1', '\\x',
    ];
    await Promise.all(keys.map((key) => storage.set(key, key)));
    for (const prefix of ['session/', 'session', '100%', '100%/', 'a_b', 'é', 'e', '\uffff', '😀', '\u{10ffff}', 'tail/', 'tail', '\\', 'nothing', 'S']) {
      assert.deepEqual(keysOf(storage, prefix), keys.filter((key) => key.startsWith(prefix)), `prefix ${JSON.stringify(prefix)}`);
    }
    assert.deepEqual(keysOf(storage, ''), keys, 'no prefix: all of them');
  });

  it('keeps entries and their order across a restart', async (t) => {
    const dir = await dataDir(t);
    const first = await openStore(t, dir);
    const storage = new SqlPluginStorage(first.store, 'auth-basic');
    await storage.set('session/b', { user: 'b' });
    await storage.set('session/a', { user: 'a' });
    await storage.set('credential/stamp', 'stamp-1');
    await storage.set('session/b', { user: 'b', last_seen_at: 2 });
    await first.close();

    const { store } = await openStore(t, dir);
    const again = new SqlPluginStorage(store, 'auth-basic');
    assert.deepEqual([...again.entries('session/')], [['session/b', { user: 'b', last_seen_at: 2 }], ['session/a', { user: 'a' }]]);
    assert.equal(again.get('credential/stamp'), 'stamp-1');
    await again.set('session/c', { user: 'c' });
    assert.deepEqual(keysOf(again), ['session/b', 'session/a', 'credential/stamp', 'session/c'], 'numbering goes on after the stored entries');
  });

  it('gives values back as they were stored, and refuses one without a JSON form', async (t) => {
    const { store } = await openStore(t, await dataDir(t));
    const storage = new SqlPluginStorage(store, 'values');
    const values: JsonValue[] = [
      null, true, false, 0, -1.5, 1e300, Number.MAX_SAFE_INTEGER, '', 'text with "quotes", \\ and\nlines', '😀 é \u0000 \u2028',
      [], [1, 'two', [3], { four: 4 }], {}, { nested: { deep: [null, { x: '' }] } }, JSON.parse('{"__proto__": "an own key, not a prototype"}'), 'x'.repeat(1_000_000),
    ];
    await Promise.all(values.map((value, i) => storage.set(`v/${i}`, value)));
    values.forEach((value, i) => assert.deepEqual(storage.get(`v/${i}`), value, `value ${i}`));
    assert.deepEqual([...storage.entries('v/')].map(([, value]) => value), values);
    const stored = { n: 1 };
    const write = storage.set('snapshot', stored);
    stored.n = 2;
    await write;
    assert.deepEqual(storage.get('snapshot'), { n: 1 }, 'what was set, not what the object became');
    const mutable = storage.get<{ n: number }>('snapshot');
    if (mutable) mutable.n = 3;
    assert.deepEqual(storage.get('snapshot'), { n: 1 }, 'a read is a copy');
    // A plugin written in JavaScript can hand over anything.
    const noJson: unknown = undefined;
    await assert.rejects(storage.set('nothing', noJson as JsonValue), /stored a value without a JSON form under "nothing"/);
    assert.equal(storage.get('nothing'), undefined);
  });

  it('rejects a write the database refuses (full) and leaves no trace of it, before or after a restart', async (t) => {
    const dir = await dataDir(t);
    const first = await openStore(t, dir);
    const storage = new SqlPluginStorage(first.store, 'webhooks');
    await storage.set('delivery/1', { status: 'pending' });
    await storage.set('delivery/2', { status: 'pending' });
    // SQLite refuses to grow the file past max_page_count with SQLITE_FULL, as it does on a full disk.
    const pages = Number(first.store.db.pragma('page_count', { simple: true }));
    first.store.db.pragma(`max_page_count = ${pages}`);
    const refused = [storage.set('delivery/1', { status: 'delivered' }), storage.set('payload/1', 'x'.repeat(100_000)), storage.delete('delivery/2')];
    for (const write of refused) await assert.rejects(write, ServiceUnavailableError);
    assert.deepEqual([...storage.entries()], [['delivery/1', { status: 'pending' }], ['delivery/2', { status: 'pending' }]]);
    first.store.db.pragma('max_page_count = 1073741823');
    await storage.set('delivery/3', { status: 'pending' });
    await first.close();

    const { store } = await openStore(t, dir);
    assert.deepEqual(keysOf(new SqlPluginStorage(store, 'webhooks')), ['delivery/1', 'delivery/2', 'delivery/3']);
  });

  it('keeps each plugin to its own entries, under the same keys and prefixes', async (t) => {
    const { store } = await openStore(t, await dataDir(t));
    const names = Array.from({ length: 20 }, (_, i) => `plugin-${i}`).concat(['plugin', 'plugin-1-1', 'Plugin-1', '']);
    const storages = names.map((name) => new SqlPluginStorage(store, name));
    await Promise.all(storages.flatMap((storage, i) => [storage.set('cursor', i), storage.set(`run/${i}`, names[i] ?? null), storage.set('shared/a', i)]));
    await storages[1]?.delete('cursor');
    await storages[2]?.set('cursor', 'moved');
    storages.forEach((storage, i) => {
      assert.equal(storage.get('cursor'), i === 1 ? undefined : i === 2 ? 'moved' : i, names[i]);
      assert.deepEqual([...storage.entries('run/')], [[`run/${i}`, names[i]]], names[i]);
      assert.deepEqual(keysOf(storage), i === 1 ? [`run/${i}`, 'shared/a'] : ['cursor', `run/${i}`, 'shared/a'], names[i]);
    });
  });
});
