import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { CoverCacheBudget } from '../../../core/covers/cover-cache-budget.js';
import { createLogger } from '../../../core/logging/create-logger.js';

const BLOCK = 4096;

async function folder(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-cover-budget-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function write(dir: string, name: string, bytes: number): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, Buffer.alloc(bytes, 1));
  return path;
}

const open = (dir: string, maxBytes: number) => CoverCacheBudget.open({ dir, maxBytes, log: createLogger('silent') });

describe('CoverCacheBudget', () => {
  it('counts every file as at least one 4 KiB block, so tiny missing-cover markers cannot pile up uncounted', async (t) => {
    const dir = await folder(t);
    const budget = await open(dir, 100 * BLOCK);
    await budget.stored(await write(dir, 'a.missing', 13), 13);
    await budget.stored(await write(dir, 'b-250.jpg', BLOCK + 1), BLOCK + 1);
    assert.equal(budget.bytes, 3 * BLOCK);
    await budget.stored(join(dir, 'a.missing'), 13); // rewritten: counted once
    assert.equal(budget.bytes, 3 * BLOCK);
  });

  it('removes the least recently served files once a new one passes the cap, and always keeps the newest', async (t) => {
    const dir = await folder(t);
    const budget = await open(dir, 3 * BLOCK);
    const a = await write(dir, 'a-250.jpg', 100);
    await budget.stored(a, 100);
    const b = await write(dir, 'b-250.jpg', 100);
    await budget.stored(b, 100);
    const c = await write(dir, 'c-250.jpg', 100);
    await budget.stored(c, 100);
    budget.served(a, Date.now());
    const d = await write(dir, 'd-250.jpg', 100);
    await budget.stored(d, 100);
    assert.deepEqual((await readdir(dir)).sort(), ['a-250.jpg', 'c-250.jpg', 'd-250.jpg'], 'b was the least recently used');
    const huge = await write(dir, 'huge-500.jpg', 10 * BLOCK);
    await budget.stored(huge, 10 * BLOCK);
    assert.deepEqual(await readdir(dir), ['huge-500.jpg']);
    assert.equal(budget.bytes, 10 * BLOCK);
  });

  it('reads the folder at start in order of last use (modification time), removes interrupted writes, and trims to the cap', async (t) => {
    const dir = await folder(t);
    const names = ['old-250.jpg', 'older-250.jpg', 'newest-250.jpg', 'new-250.jpg'];
    const ages = [3, 4, 1, 2];
    for (const [index, name] of names.entries()) {
      const path = await write(dir, name, 100);
      const when = new Date(Date.now() - (ages[index] ?? 0) * 60_000);
      await utimes(path, when, when);
    }
    await write(dir, 'half-250.jpg.1234.tmp', 100);
    const budget = await open(dir, 2 * BLOCK);
    assert.deepEqual((await readdir(dir)).sort(), ['new-250.jpg', 'newest-250.jpg']);
    assert.equal(budget.bytes, 2 * BLOCK);
  });

  it('starts empty when the folder does not exist yet', async (t) => {
    const dir = await folder(t);
    const budget = await open(join(dir, 'cache', 'covers'), BLOCK);
    assert.equal(budget.bytes, 0);
  });
});
