import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IndexFile } from '../../../core/storage/index-file.js';

describe('IndexFile', () => {
  it('reads back its meta and arrays, and reads a missing, torn, altered or foreign file as none', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-index-file-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const file = new IndexFile<{ covered: number }>(join(dir, 'x.jsonl.idx'));
    assert.equal(await file.read(), undefined, 'none yet');

    const arrays = { bytes: Uint8Array.from([1, 2, 3]), offsets: Float64Array.from([0, 2 ** 40 + 1]), values: Int32Array.from([-1, 7]), hashes: Uint32Array.from([2 ** 32 - 1]) };
    await file.write({ covered: 42 }, arrays);
    const back = await file.read();
    assert.deepEqual(back?.meta, { covered: 42 });
    assert.deepEqual(back?.arrays, arrays);

    const whole = await readFile(file.path);
    const altered = Buffer.from(whole);
    altered[whole.length - 10] = (altered[whole.length - 10] ?? 0) ^ 1;
    await writeFile(file.path, altered);
    assert.equal(await file.read(), undefined, 'one bit flipped');
    await writeFile(file.path, whole);
    await truncate(file.path, whole.length - 3);
    assert.equal(await file.read(), undefined, 'cut short');
    await writeFile(file.path, '{"not":"an index"}\n');
    assert.equal(await file.read(), undefined, 'another kind of file');
    await file.remove();
    await file.remove();
    assert.equal(await file.read(), undefined, 'removed (twice: the second finds nothing)');
  });
});
