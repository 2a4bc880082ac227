import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirInUseError, DataDirLock } from '../../../core/storage/data-dir-lock.js';

describe('DataDirLock', () => {
  it('refuses a second lock on the same dir in the same process', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-lock-unit-'));
    const lock = await DataDirLock.acquire(dir);
    await assert.rejects(DataDirLock.acquire(dir), DataDirInUseError);
    await lock.release();
    const again = await DataDirLock.acquire(dir);
    await again.release();
  });

  it('takes over a lock naming this very pid that this process does not hold (a container restarted as pid 1)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-lock-unit-'));
    await writeFile(join(dir, 'crateflow.lock'), `${process.pid}\n`);
    const lock = await DataDirLock.acquire(dir);
    assert.equal((await readFile(join(dir, 'crateflow.lock'), 'utf8')).trim(), String(process.pid));
    await lock.release();
  });

  it('takes over a lock whose process is gone, and an empty lock left by a crash while it was written', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-lock-unit-'));
    await writeFile(join(dir, 'crateflow.lock'), '2147483646\n'); // no such pid
    await (await DataDirLock.acquire(dir)).release();
    await writeFile(join(dir, 'crateflow.lock'), '');
    await (await DataDirLock.acquire(dir)).release();
  });
});
