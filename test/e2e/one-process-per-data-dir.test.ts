import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api } from '../helpers/api-client.js';
import { freePort, killAllServiceProcesses, runServiceToExit, SERVICE_CHILD, startServiceProcess } from '../resilience/service-process.js';
import { writeServiceConfig } from '../resilience/write-service-config.js';

after(killAllServiceProcesses);

/** Every file of the dir with its size and modification time: what "touched nothing" is checked against. */
async function fingerprint(dir: string): Promise<string[]> {
  const names = (await readdir(dir)).sort();
  return Promise.all(names.map(async (name) => {
    const info = await stat(join(dir, name));
    return `${name} ${info.size} ${info.mtimeMs}`;
  }));
}

describe('one process per data dir', () => {
  it('refuses a second service on the same storage.dir, and one that cannot listen, without touching the files', async () => {
    const root = await mkdtemp(join(tmpdir(), 'crateflow-lock-'));
    const port = await freePort();
    const config = await writeServiceConfig(root, port);
    const first = await startServiceProcess({ script: SERVICE_CHILD, args: ['--config', config], port });
    for (let i = 0; i < 5; i++) assert.equal((await api(first.baseUrl, 'POST', '/api/v1/queue', { artist: `Kept ${i}`, album: 'A' })).status, 201);
    const data = join(root, 'data');
    const before = await fingerprint(data);
    assert.ok(before.some((line) => line.startsWith('crateflow.db-wal ')), 'the first service has a live write-ahead log');

    // Same data dir, another port: the lock refuses it.
    const otherPort = await writeServiceConfig(await mkdtemp(join(tmpdir(), 'crateflow-lock-b-')), await freePort(), { storage: { dir: data } });
    const second = await runServiceToExit(otherPort);
    assert.equal(second.code, 1);
    assert.match(second.output, /in use by another Crateflow process \(pid \d+\)/);
    // Same port and same dir (a second `npm start` by mistake): it cannot listen and stops before opening anything.
    const third = await runServiceToExit(config);
    assert.equal(third.code, 1);
    assert.match(third.output, /could not listen/);
    assert.deepEqual(await fingerprint(data), before, 'a refused start changed the data dir');

    // The first one still has every write, and keeps taking more.
    assert.equal((await api(first.baseUrl, 'POST', '/api/v1/queue', { artist: 'After', album: 'A' })).status, 201);
    const pending = await api<{ total: number }>(first.baseUrl, 'GET', '/api/v1/queue/pending');
    assert.equal(pending.body.total, 6);
    await first.stop();
  });

  it('takes over the lock of a process that was killed', async () => {
    const root = await mkdtemp(join(tmpdir(), 'crateflow-lock-stale-'));
    const port = await freePort();
    const config = await writeServiceConfig(root, port);
    const first = await startServiceProcess({ script: SERVICE_CHILD, args: ['--config', config], port });
    assert.equal((await api(first.baseUrl, 'POST', '/api/v1/queue', { artist: 'Survivor', album: 'A' })).status, 201);
    await first.kill9();
    assert.equal((await readFile(join(root, 'data', 'crateflow.lock'), 'utf8')).trim(), String(first.pid), 'kill -9 leaves the lock behind');
    const second = await startServiceProcess({ script: SERVICE_CHILD, args: ['--config', config], port });
    const pending = await api<{ items: { artist: string }[] }>(second.baseUrl, 'GET', '/api/v1/queue/pending');
    assert.deepEqual(pending.body.items.map((item) => item.artist), ['Survivor']);
    await second.stop();
    assert.deepEqual((await readdir(join(root, 'data'))).filter((name) => name.endsWith('.lock')), [], 'a clean stop releases the lock');
  });

  it('refuses a lock held by another live process and says how to clear a stale one', async () => {
    const root = await mkdtemp(join(tmpdir(), 'crateflow-lock-self-'));
    const port = await freePort();
    const config = await writeServiceConfig(root, port);
    const first = await startServiceProcess({ script: SERVICE_CHILD, args: ['--config', config], port });
    await first.stop();
    // This test process's pid stands for a live process that holds the lock (or a reused pid: the message says
    // how to clear it then).
    await writeFile(join(root, 'data', 'crateflow.lock'), `${process.pid}\n`);
    const refused = await runServiceToExit(config);
    assert.equal(refused.code, 1);
    assert.match(refused.output, new RegExp(`pid ${process.pid}.*delete .*crateflow\\.lock`));
  });
});
