import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Database } from '../../../core/storage/database.js';
import { JsonDocument } from '../../../core/storage/json-document.js';
import { TS_NODE_ARGS } from '../../helpers/run-service.js';

const WRITER = fileURLToPath(new URL('../../fixtures/store-writer.ts', import.meta.url));

describe('JsonDocument', () => {
  it('appends only the touched records to the change log and replays it on open', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-store-'));
    const doc = await (await Database.open(dir)).document<{ items: Record<string, string>; count: number }>('log', () => ({ items: {}, count: 0 }));
    doc.data.items.a = 'first';
    doc.touch('items', 'a');
    await doc.commit(); // nothing touched before: the first write of a fresh document is a change set too
    doc.data.items.b = 'second';
    doc.touch('items', 'b');
    delete doc.data.items.a;
    doc.touch('items', 'a');
    doc.data.count = 2;
    doc.touch('count');
    await doc.commit();
    const log = (await readFile(`${doc.path}.changes`, 'utf8')).trim().split('\n').map((line) => JSON.parse(line));
    assert.deepEqual(log.at(-1), { set: [['items', 'b', 'second']], del: [['items', 'a']], put: [['count', 2]] });
    const reopened = await (await Database.open(dir)).document<{ items: Record<string, string>; count: number }>('log', () => ({ items: {}, count: 0 }));
    assert.deepEqual(reopened.data, { items: { b: 'second' }, count: 2 });
    assert.equal(await readFile(`${doc.path}.changes`, 'utf8'), '', 'opening folds the log into the snapshot');
  });

  it('ignores a torn last line of the change log (a crash in the middle of an append)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-store-'));
    await writeFile(join(dir, 'torn.json'), '{"items":{"a":1}}');
    await writeFile(join(dir, 'torn.json.changes'), '{"set":[["items","b",2]]}\n{"set":[["items","c"');
    const doc = await (await Database.open(dir)).document<{ items: Record<string, number> }>('torn', () => ({ items: {} }));
    assert.deepEqual(doc.data.items, { a: 1, b: 2 });
  });

  it('group-commits concurrent mutations into a couple of file writes', async () => {
    const database = await Database.open(await mkdtemp(join(tmpdir(), 'crateflow-store-')));
    const doc = await database.document<{ items: number[] }>('group', () => ({ items: [] }));
    const commits: Promise<void>[] = [];
    for (let i = 0; i < 500; i++) {
      doc.data.items.push(i);
      commits.push(doc.commit());
    }
    await Promise.all(commits);
    assert.ok(doc.writeCount <= 2, `500 concurrent commits took ${doc.writeCount} writes`);
    const onDisk = await readDocument(doc.path);
    assert.ok(Array.isArray(onDisk.items) && onDisk.items.length === 500, 'every item is on disk');
  });

  it('resolves a commit only after a write that includes the change, even when one is in flight', async () => {
    const database = await Database.open(await mkdtemp(join(tmpdir(), 'crateflow-store-')));
    const doc = await database.document<{ n: number }>('flight', () => ({ n: 0 }));
    doc.data.n = 1;
    const first = doc.commit();
    await new Promise((r) => setImmediate(r)); // the first write is now serialising/writing
    doc.data.n = 2;
    await doc.commit();
    await first;
    assert.equal((await readDocument(doc.path)).n, 2);
  });

  it('reads back what it wrote after reopening and removes a stale temp file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-store-'));
    const first = await (await Database.open(dir)).document<{ v: string }>('state', () => ({ v: 'new' }));
    first.data.v = 'kept';
    await first.commit();
    await writeFile(join(dir, 'state.json.tmp'), '{"v": "half-writ');
    const reopened = await (await Database.open(dir)).document<{ v: string }>('state', () => ({ v: 'new' }));
    assert.equal(reopened.data.v, 'kept');
    assert.deepEqual((await readdir(dir)).sort(), ['state.json']);
  });

  it('refuses to start on a corrupt file instead of overwriting it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-store-'));
    await writeFile(join(dir, 'broken.json'), '{"queue": [');
    const database = await Database.open(dir);
    await assert.rejects(database.document('broken', () => ({})), /broken\.json: not valid JSON/);
    assert.equal(await readFile(join(dir, 'broken.json'), 'utf8'), '{"queue": [');
  });
});

describe('the store under kill -9', () => {
  it('keeps every acknowledged commit and a readable file across 25 random kills', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-crash-'));
    let acknowledged = 0;
    for (let run = 0; run < 25; run++) {
      const child = spawn(process.execPath, [...TS_NODE_ARGS, WRITER, dir], { stdio: ['pipe', 'pipe', 'inherit'] });
      let ready = false;
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (!ready && output.includes('ready\n')) {
          ready = true;
          setTimeout(() => child.kill('SIGKILL'), 20 + Math.floor(Math.random() * 150));
        }
      });
      await new Promise((resolve) => child.once('exit', resolve));
      const acks = [...output.matchAll(/^ack (\d+)$/gm)].map((m) => Number(m[1]));
      acknowledged = Math.max(acknowledged, ...acks);
      // Load the store the way the service does (snapshot + change log) and look for every acknowledged record.
      const reopened = await (await Database.open(dir)).document<{ items: Record<string, { n: number }> }>('crash', () => ({ items: {} }));
      for (const n of acks) assert.equal(reopened.data.items[`r${n}`]?.n, n, `run ${run}: acknowledged ${n} is missing`);
      const leftovers = (await readdir(dir)).filter((f) => !['crash.json', 'crash.json.tmp', 'crash.json.changes'].includes(f));
      assert.deepEqual(leftovers, []);
    }
    assert.ok(acknowledged > 100, `only ${acknowledged} commits were acknowledged in 25 runs`);
  });
});

/** A document as stored (snapshot plus change log), whatever the snapshot's format. */
async function readDocument(path: string): Promise<Record<string, unknown>> {
  const data = await JsonDocument.peek(path);
  assert.ok(data && typeof data === 'object');
  return { ...data };
}
