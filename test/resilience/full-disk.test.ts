// A full disk under the real service: the data dir on a small tmpfs, filled up while clients add and approve,
// then kill -9, free the space, restart. Every acknowledged write must be there, no refused one (and no event
// of a refused one), a refused change must not be served while the service runs, and no byte of a refused change
// may be in what a restart replays (the database file and the committed part of its WAL). Needs root (mount -t
// tmpfs), as CI and the developers' machines run.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm, stat, statfs, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DATABASE_FILE } from '../../core/storage/store.js';
import { startFakeWebhookReceiver } from '../fakes/fake-webhook-receiver.js';
import { api } from '../helpers/api-client.js';
import { mountTmpfs } from '../helpers/tmpfs-mount.js';
import { freePort, killAllServiceProcesses, SERVICE_CHILD, startServiceProcess, type ServiceProcess } from './service-process.js';
import { endsTorn, readWalTail } from './wal-tail.js';
import { writeServiceConfig } from './write-service-config.js';

const DISK_BYTES = 4 * 1024 * 1024;
// A commit writes whole pages to the WAL: about 70 KiB for one add here (the row, its index entries, the counts,
// the event and its delivery), so this leaves room for a few commits before none fit.
const LEFT_FREE = 512 * 1024;

after(killAllServiceProcesses);

interface QueueItem {
  id: string;
  artist: string;
  status: string;
}

describe('a full disk under the service', () => {
  it('keeps every acknowledged write across kill -9 and leaves no trace of a refused one', async (t) => {
    const { root, disk } = await mountTmpfs(t, `size=${DISK_BYTES}`);
    const receiver = await startFakeWebhookReceiver();
    t.after(() => receiver.close());
    const port = await freePort();
    const config = await writeServiceConfig(root, port, {
      storage: { dir: join(disk, 'data') },
      webhooks: [{ name: 'watcher', url: receiver.url, events: ['queue_added', 'queue_approved'] }],
    });
    const start = () => startServiceProcess({ script: SERVICE_CHILD, args: ['--config', config], port });

    let service = await start();
    const acked: QueueItem[] = [];
    for (let i = 0; i < 40; i++) acked.push(...(await add(service, `Before ${i}`)).items);

    // Fill the disk, leaving a few KiB: some commits still fit, then none do.
    const dataDir = join(disk, 'data');
    const databaseFile = join(dataDir, DATABASE_FILE);
    const walFile = join(dataDir, `${DATABASE_FILE}-wal`);
    const bytesBeforeFull = { database: await sizeOf(databaseFile), wal: await sizeOf(walFile) };
    const filler = join(disk, 'filler');
    const free = await freeBytes(disk);
    await writeFile(filler, Buffer.alloc(Math.max(0, free - LEFT_FREE)));

    const refusedAdds: string[] = [];
    const approved: string[] = [];
    const refusedApprovals: string[] = [];
    let requests = 0;
    while ((refusedAdds.length < 20 || refusedApprovals.length < 5) && requests < 3000) {
      requests++;
      const artist = `During ${requests} ${'x'.repeat(300)}`;
      const added = await add(service, artist);
      if (added.status === 201) acked.push(...added.items);
      else {
        assert.equal(added.status, 503, `a refused write answers 503, got ${added.status}`);
        refusedAdds.push(artist);
        // Not served while the service runs: the pending list never shows a refused candidate.
        const pending = await listAll(service, 'pending');
        assert.ok(!pending.some((item) => item.artist === artist), 'a refused add is served');
      }
      const target = acked.find((item) => !approved.includes(item.id) && !refusedApprovals.includes(item.id));
      if (target) {
        const res = await fetch(`${service.baseUrl}/api/v1/queue/${target.id}/approve`, { method: 'POST' });
        await res.arrayBuffer();
        if (res.status === 200) approved.push(target.id);
        else {
          assert.equal(res.status, 503);
          refusedApprovals.push(target.id);
        }
      }
    }
    assert.ok(refusedAdds.length >= 20 && refusedApprovals.length >= 5, `the disk never filled up: ${refusedAdds.length} adds and ${refusedApprovals.length} approvals refused in ${requests} requests`);
    const health = await fetch(`${service.baseUrl}/health`);
    assert.equal(health.status, 503, 'health says the store cannot be written');
    await health.arrayBuffer();
    const bytesWhileFull = { database: await sizeOf(databaseFile), wal: await sizeOf(walFile) };

    await service.kill9();
    // What a restart replays is the database file and the WAL up to its last whole commit; a refused commit may
    // have left frames after that, which SQLite ignores, but nothing of it may be before. (A size bound would say
    // nothing here: the WAL keeps whole pages of every commit until a checkpoint at 1000 pages, so it already
    // holds most of this small disk when it fills, and nothing can grow on a full disk anyway.)
    const wal = await readWalTail(walFile);
    assert.equal(wal.commitsBehindDamage, 0, `the WAL has commits behind a broken frame: ${JSON.stringify(wal)}`);
    const replayed = Buffer.concat([await readFile(databaseFile), (await readFile(walFile)).subarray(0, wal.committedEnd)]);
    for (const artist of refusedAdds) assert.equal(replayed.indexOf(artist), -1, `a refused add is in the committed database: ${artist.slice(0, 20)}…`);
    const acknowledgedArtist = acked.at(-1)?.artist ?? assert.fail('nothing was acknowledged');
    assert.ok(replayed.includes(acknowledgedArtist), 'the search finds what was acknowledged (the check above can fail)');
    await rm(filler);
    service = await start();
    const healthAfter = await fetch(`${service.baseUrl}/health`);
    await healthAfter.arrayBuffer();
    assert.equal(healthAfter.status, 200, 'with space again the restarted store can be written');

    const pending = await listAll(service, 'pending');
    const decided = await listAll(service, 'approved');
    const pendingIds = new Set(pending.map((item) => item.id));
    const approvedIds = new Set(decided.map((item) => item.id));
    for (const item of acked) {
      const expected = approved.includes(item.id) ? approvedIds : pendingIds;
      assert.ok(expected.has(item.id), `acknowledged ${item.artist} (${approved.includes(item.id) ? 'approved' : 'pending'}) is missing after restart`);
    }
    for (const id of refusedApprovals) assert.ok(pendingIds.has(id), 'a refused approval is not applied after restart');
    const everyArtist = new Set([...pending, ...decided].map((item) => item.artist));
    for (const artist of refusedAdds) assert.ok(!everyArtist.has(artist), 'a refused add is stored');
    const announcedArtists = () => new Set(receiver.received.filter((r) => r.headers['x-webhook-event'] === 'queue_added').map((r) => artistOf(r.text)));
    await eventually(() => acked.every((item) => announcedArtists().has(item.artist)));
    const announced = [...announcedArtists()];
    for (const artist of refusedAdds) assert.ok(!announced.includes(artist), 'a refused add fired its webhook');
    process.stdout.write(
      `# full disk: ${acked.length} adds and ${approved.length} approvals acknowledged, ${refusedAdds.length} adds and ${refusedApprovals.length} approvals refused (503) in ${requests} rounds; after kill -9 and restart all acknowledged present, none refused; database + WAL ${kib(bytesBeforeFull)} before the disk filled, ${kib(bytesWhileFull)} while it was full; at the kill the WAL held ${wal.committedFrames} committed frames and ${endsTorn(wal) ? `${wal.unfinishedFrames} frames and ${wal.partialBytes} bytes of a refused commit after them` : 'nothing after them'}\n`,
    );
    await service.stop();
  });
});

async function add(service: ServiceProcess, artist: string): Promise<{ status: number; items: QueueItem[] }> {
  const res = await api<{ items?: QueueItem[] }>(service.baseUrl, 'POST', '/api/v1/queue', { artist, album: 'Filling', source: 'full-disk' });
  return { status: res.status, items: res.body.items ?? [] };
}

async function listAll(service: ServiceProcess, status: string): Promise<QueueItem[]> {
  const items: QueueItem[] = [];
  for (let offset = 0; ; offset += 500) {
    const res = await api<{ items: QueueItem[]; total: number }>(service.baseUrl, 'GET', `/api/v1/queue?status=${status}&limit=500&offset=${offset}`);
    assert.equal(res.status, 200);
    const page = res.body;
    items.push(...page.items);
    if (items.length >= page.total || page.items.length === 0) return items;
  }
}

function kib(files: { database: number; wal: number }): string {
  return `${(files.database / 1024).toFixed(0)} + ${(files.wal / 1024).toFixed(0)} KiB`;
}

async function sizeOf(file: string): Promise<number> {
  return stat(file).then((found) => found.size, () => 0);
}

async function freeBytes(dir: string): Promise<number> {
  const fs = await statfs(dir);
  return fs.bavail * fs.bsize;
}

async function eventually(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function artistOf(body: string): string {
  const parsed: unknown = JSON.parse(body);
  const data: unknown = parsed && typeof parsed === 'object' ? Reflect.get(parsed, 'data') : undefined;
  const artist: unknown = data && typeof data === 'object' ? Reflect.get(data, 'artist') : undefined;
  return String(artist);
}
