import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { createLogger } from '../../../core/logging/create-logger.js';
import { DiskCache } from '../../../core/metadata/disk-cache.js';
import { ManualClock } from '../../helpers/manual-clock.js';

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-disk-cache-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return join(dir, 'cache');
}

describe('DiskCache', () => {
  it('keeps a value until its time to live runs out, across a reopen', async (t) => {
    const dir = await tempDir(t);
    const clock = new ManualClock();
    const options = { dir, clock, log: createLogger('silent'), maxBytes: 1_000_000 };
    await (await DiskCache.open(options)).set('/ws/2/artist/x', { name: 'X' }, 1000);
    const reopened = await DiskCache.open(options);
    assert.deepEqual(await reopened.get('/ws/2/artist/x'), { name: 'X' });
    await clock.advance(1000);
    assert.equal(await reopened.get('/ws/2/artist/x'), undefined);
  });

  it('reads a torn file, a file of another shape and a file for another key as misses and deletes them', async (t) => {
    const dir = await tempDir(t);
    const options = { dir, clock: new ManualClock(), log: createLogger('silent'), maxBytes: 1_000_000 };
    const cache = await DiskCache.open(options);
    for (const key of ['a', 'b', 'c']) await cache.set(key, key, 60_000);
    const files = await readdir(dir);
    await writeFile(join(dir, files[0] ?? ''), '{"key":"a","expi');
    await writeFile(join(dir, files[1] ?? ''), '[1, 2, 3]');
    await writeFile(join(dir, files[2] ?? ''), JSON.stringify({ key: 'somebody else', expiresAt: Number.MAX_SAFE_INTEGER, value: 'wrong' }));
    const reopened = await DiskCache.open(options);
    assert.deepEqual(await Promise.all(['a', 'b', 'c'].map((key) => reopened.get(key))), [undefined, undefined, undefined]);
    assert.deepEqual(await readdir(dir), []);
    assert.equal(reopened.sizeBytes, 0);
  });

  it('deletes the oldest entries once the files pass the size bound, also when reopened with a smaller bound', async (t) => {
    const dir = await tempDir(t);
    const clock = new ManualClock();
    const options = { dir, clock, log: createLogger('silent'), maxBytes: 10_000 };
    const cache = await DiskCache.open(options);
    const value = 'x'.repeat(900);
    for (let i = 0; i < 20; i++) {
      await cache.set(`key ${i}`, value, 60_000);
      await clock.advance(1);
    }
    assert.ok(cache.sizeBytes <= 10_000);
    assert.equal(await cache.get('key 0'), undefined);
    assert.equal(await cache.get('key 19'), value);
    const smaller = await DiskCache.open({ ...options, maxBytes: 2000 });
    assert.ok(smaller.sizeBytes <= 2000);
    assert.equal((await readdir(dir)).length, 2);
  });
});
