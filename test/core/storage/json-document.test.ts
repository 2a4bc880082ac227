import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Database } from '../../../core/storage/database.js';
import { TS_NODE_ARGS } from '../../helpers/run-service.js';

const WRITER = fileURLToPath(new URL('../../fixtures/store-writer.ts', import.meta.url));

describe('JsonDocument', () => {
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
    const onDisk = JSON.parse(await readFile(doc.path, 'utf8'));
    assert.equal(onDisk.items.length, 500);
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
    assert.equal(JSON.parse(await readFile(doc.path, 'utf8')).n, 2);
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
    await assert.rejects(database.document('broken', () => ({})), /broken\.json is not valid JSON/);
    assert.equal(await readFile(join(dir, 'broken.json'), 'utf8'), '{"queue": [');
  });
});

describe('the store under kill -9', () => {
  it('keeps every acknowledged commit and a readable file across 25 random kills', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-crash-'));
    let acknowledged = 0;
    for (let run = 0; run < 25; run++) {
      const child = spawn(process.execPath, [...TS_NODE_ARGS, WRITER, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
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
      const onDisk: { acked: number[] } = JSON.parse(await readFile(join(dir, 'crash.json'), 'utf8').catch(() => '{"acked":[]}'));
      const stored = new Set(onDisk.acked);
      for (const n of acks) assert.ok(stored.has(n), `run ${run}: acknowledged ${n} is missing from the file`);
      const leftovers = (await readdir(dir)).filter((f) => f !== 'crash.json' && f !== 'crash.json.tmp');
      assert.deepEqual(leftovers, []);
    }
    assert.ok(acknowledged > 100, `only ${acknowledged} commits were acknowledged in 25 runs`);
  });
});
