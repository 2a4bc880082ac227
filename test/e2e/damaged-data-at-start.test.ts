import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api } from '../helpers/api-client.js';
import { mountTmpfs } from '../helpers/tmpfs-mount.js';
import { freePort, killAllServiceProcesses, runServiceToExit, SERVICE_CHILD, startServiceProcess } from '../resilience/service-process.js';
import { writeServiceConfig } from '../resilience/write-service-config.js';

after(killAllServiceProcesses);

/** A data dir holding two queue items in its change log (the service killed before it folded them in). */
async function dataDirWithItems(): Promise<{ root: string; config: string; port: number; data: string }> {
  const root = await mkdtemp(join(tmpdir(), 'crateflow-damaged-'));
  const port = await freePort();
  const config = await writeServiceConfig(root, port);
  const service = await startServiceProcess({ script: SERVICE_CHILD, args: ['--config', config], port });
  for (const artist of ['Low', 'Ride']) assert.equal((await api(service.baseUrl, 'POST', '/api/v1/queue', { artist, album: 'A' })).status, 201);
  await service.kill9();
  return { root, config, port, data: join(root, 'data') };
}

describe('damaged data at start-up', () => {
  it('refuses to start on a change log line that is not JSON, naming the file, the line and how to recover, and changes nothing', async () => {
    const { config, data } = await dataDirWithItems();
    const log = join(data, 'crateflow.json.changes');
    const lines = (await readFile(log, 'utf8')).split('\n');
    lines[0] = `#garbage#${lines[0] ?? ''}`;
    await writeFile(log, lines.join('\n'));
    const before = await readFile(log, 'utf8');
    const started = await runServiceToExit(config);
    assert.equal(started.code, 1);
    assert.match(started.output, /crateflow\.json\.changes: line 1 is not valid JSON; move the \.changes file away .* or restore the data dir from a backup/);
    assert.doesNotMatch(started.output, /\n\s+at /, 'no stack trace');
    assert.equal(await readFile(log, 'utf8'), before, 'the damaged file is left as it was for the user to recover');
  });

  it('refuses to start on a record of the wrong shape, naming the record', async () => {
    const { config, data } = await dataDirWithItems();
    await appendFile(join(data, 'crateflow.json.changes'), `${JSON.stringify({ set: [['queue', 'abc', { id: 'other', artist: 'X' }]] })}\n`);
    const started = await runServiceToExit(config);
    assert.equal(started.code, 1);
    assert.match(started.output, /crateflow\.json: queue record "abc" does not carry its own id; restore the data dir from a backup/);
  });

  it('starts on a torn last line (a crash mid-write), says so in the log, and keeps every complete change', async () => {
    const { config, data, port } = await dataDirWithItems();
    await appendFile(join(data, 'crateflow.json.changes'), '{"set":[["queue","torn",{"id":"to');
    const service = await startServiceProcess({ script: SERVICE_CHILD, args: ['--config', config], port });
    const pending = await api<{ items: { artist: string }[] }>(service.baseUrl, 'GET', '/api/v1/queue/pending');
    assert.deepEqual(pending.body.items.map((item) => item.artist).sort(), ['Low', 'Ride']);
    const warning = service.output().split('\n').find((line) => line.includes('torn line'));
    assert.ok(warning, `no log line about the torn tail:\n${service.output()}`);
    assert.match(warning, /"level":40/);
    assert.match(warning, /"bytes":\d+/);
    await service.stop();
  });

  it('refuses to start on a storage dir it cannot write, naming storage.dir', async (t) => {
    // Root ignores file permissions, so the dir is a read-only mount.
    const { root, disk: data } = await mountTmpfs(t, 'ro,size=1m', 'ro');
    const config = await writeServiceConfig(root, await freePort(), { storage: { dir: data } });
    const started = await runServiceToExit(config);
    assert.equal(started.code, 1);
    assert.match(started.output, /storage\.dir: cannot use ".*ro".*read-only/i);
  });
});
