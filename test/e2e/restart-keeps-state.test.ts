// start-app first: it loads reflect-metadata, which the decorated services imported below need.
import { startApp, type StartedApp } from '../helpers/start-app.js';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Download } from '../../core/downloads/download.schema.js';
import { JobScheduler } from '../../core/jobs/job-scheduler.js';
import type { Job } from '../../core/jobs/job.schema.js';
import type { QueueItem } from '../../core/queue/queue-item.schema.js';
import { QueueService } from '../../core/queue/queue-service.js';
import type { WishlistItem } from '../../core/wishlist/wishlist-item.schema.js';
import { api, eventually } from '../helpers/api-client.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { recordEvents } from '../helpers/record-events.js';
import { writeAlbum } from '../helpers/write-album.js';
import { changeDatabase } from '../helpers/write-stored.js';

const API_KEY = 'k'.repeat(20);
const SCRIPTED_LIBRARY = fileURLToPath(new URL('../fixtures/plugins/scripted-library.ts', import.meta.url));

interface Page<T> {
  items: T[];
  total: number;
}

/** Everything the API shows about the domain's state. */
async function snapshot(app: StartedApp) {
  const get = async <T>(path: string) => {
    const res = await api<T>(app.baseUrl, 'GET', path);
    assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  return {
    pending: await get<Page<QueueItem>>('/api/v1/queue/pending?limit=500'),
    wishlist: await get<Page<WishlistItem>>('/api/v1/wishlist?limit=500'),
    downloads: await get<Page<Download>>('/api/v1/downloads?limit=500'),
    jobs: await get<Page<Job>>('/api/v1/jobs?limit=500'),
    library: await get<Page<unknown>>('/api/v1/library?limit=500'),
  };
}

describe('a restart on the same storage.dir', () => {
  let root: string;
  let config: Record<string, unknown>;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'crateflow-restart-'));
    config = {
      storage: { dir: join(root, 'data') },
      ui: { auth: { api_keys: [{ name: 'node-red', key: API_KEY, role: 'approver' }] } },
      download_client: { requests_dir: join(root, 'requests'), complete_dir: join(root, 'complete'), quiet_period_ms: 0, max_active: 2, poll_interval: '1h' },
      library: { path: join(root, 'music'), sync_interval: '1d' },
    };
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('keeps queue, wishlist, download, job and library state, and goes on from there', async (t) => {
    const clock = new ManualClock(Date.now());
    const first = await startApp({ clock, config });
    t.after(() => first.close());
    const poll = (app: StartedApp) => app.crateflow.container.resolve(JobScheduler).runNow('download_poll');
    const added = await api<{ items: QueueItem[] }>(first.baseUrl, 'POST', '/api/v1/queue', [
      { artist: 'Low', album: 'Double Negative', source: 'listenbrainz', score: 0.8 },
      { artist: 'Ride', album: 'Nowhere' },
      { artist: 'Slowdive', album: 'Souvlaki', year: 1993 },
      { artist: 'Cocteau Twins', album: 'Heaven or Las Vegas' },
    ]);
    const [low, ride, slowdive] = added.body.items;
    assert.ok(low && ride && slowdive);
    await api(first.baseUrl, 'POST', `/api/v1/queue/${low.id}/approve`, undefined, { 'x-api-key': API_KEY });
    await api(first.baseUrl, 'POST', '/api/v1/queue/reject', { ids: [ride.id] }, { 'x-api-key': API_KEY });
    await api(first.baseUrl, 'POST', '/api/v1/wishlist', { artist: 'Beach House', album: 'Bloom' });
    await api(first.baseUrl, 'POST', '/api/v1/wishlist', { artist: 'Broadcast', album: 'Tender Buttons' });
    await poll(first);
    await writeAlbum(join(root, 'complete', 'Low', 'Double Negative'), clock);
    await poll(first);
    await writeAlbum(join(root, 'music', 'Stereolab', 'Dots and Loops'));
    const sync = await api<{ job: Job }>(first.baseUrl, 'POST', '/api/v1/library/sync');
    await eventually(async () => ((await api<Job>(first.baseUrl, 'GET', `/api/v1/jobs/${sync.body.job.id}`)).body.status === 'completed' ? true : undefined));
    const before = await snapshot(first);
    assert.deepEqual(before.downloads.items.map((d) => [d.artist, d.state]), [['Beach House', 'queued'], ['Low', 'completed']]);
    // Items with a download first (the latest hand-off first), then Broadcast, still waiting for its first (max_active 2).
    assert.deepEqual(before.wishlist.items.map((w) => [w.artist, w.status]), [['Beach House', 'downloading'], ['Low', 'downloaded'], ['Broadcast', 'wanted']]);
    await first.close();

    const later = new ManualClock(clock.now() + 60_000);
    const second = await startApp({ clock: later, config });
    t.after(() => second.close());
    {
      const events = recordEvents(second);
      assert.deepEqual(await snapshot(second), before);
      const queue = second.crateflow.container.resolve(QueueService);
      const [lowNow, rideNow] = [await queue.get(low.id), await queue.get(ride.id)];
      assert.deepEqual([lowNow.status, lowNow.decided_by], ['approved', 'node-red']);
      assert.deepEqual([rideNow.status, rideNow.decided_by], ['rejected', 'node-red']);
      assert.equal((await api(second.baseUrl, 'POST', `/api/v1/queue/${ride.id}/approve`)).status, 409);
      const again = await api<{ duplicates: number }>(second.baseUrl, 'POST', '/api/v1/queue', [{ artist: 'Ride', album: 'Nowhere' }, { artist: 'Low', album: 'Double Negative' }, { artist: 'Stereolab', album: 'Dots and Loops' }]);
      assert.equal(again.body.duplicates, 3, 'the restarted app still knows rejected, wanted and owned albums');

      for (let i = 0; i < 3; i++) await poll(second);
      assert.deepEqual(events.dataOf('download_completed'), [], 'a completed download does not fire again after a restart');
      await writeAlbum(join(root, 'complete', 'Beach House', 'Bloom'), later);
      await second.crateflow.container.resolve(JobScheduler).runNow('download_poll');
      assert.deepEqual(events.dataOf('download_completed'), [{ artist: 'Beach House', album: 'Bloom', download_path: join(root, 'complete', 'Beach House', 'Bloom') }]);

      const broadcast = before.wishlist.items.find((w) => w.artist === 'Broadcast');
      assert.ok(broadcast);
      await poll(second);
      assert.equal((await readdir(join(root, 'requests'))).filter((f) => f.startsWith('Broadcast')).length, 1);
      assert.equal((await api(second.baseUrl, 'DELETE', `/api/v1/wishlist/${broadcast.id}`)).status, 204);
      assert.deepEqual((await readdir(join(root, 'requests'))).filter((f) => f.startsWith('Broadcast')), [], 'the blackhole still finds its request file');
    }
  });

  it('records a job left running by a server that was killed as failed at the next start', async () => {
    // What a server killed mid-sync leaves: the running job's committed row.
    const running = { id: 'killedjob0000000000000', kind: 'library_sync', status: 'running', trigger: 'manual', started_at: '2026-01-01T00:00:00.000Z', summary: {} };
    changeDatabase(join(root, 'data'), (db) => db.prepare('INSERT INTO jobs (id, kind, status, record) VALUES (?, ?, ?, ?)').run(running.id, running.kind, running.status, JSON.stringify(running)));

    const app = await startApp({ config });
    try {
      const job = await api<Job>(app.baseUrl, 'GET', '/api/v1/jobs/killedjob0000000000000');
      assert.equal(job.body.status, 'failed');
      assert.match(job.body.error ?? '', /interrupted/);
      assert.ok(job.body.finished_at);
    } finally {
      await app.close();
    }
  });

  it('records a sync still running at shutdown as failed, not as running forever', async () => {
    const scripts = await mkdtemp(join(tmpdir(), 'crateflow-restart-library-'));
    const files = { script_file: join(scripts, 'script.json'), gate_file: join(scripts, 'gate'), calls_file: join(scripts, 'calls') };
    await writeFile(files.script_file, JSON.stringify({ albums: [{ artist: 'Low', album: 'Double Negative' }] }));
    await writeFile(files.gate_file, '');
    const held = { ...config, storage: { dir: join(scripts, 'data') }, library: { type: 'scripted-library', sync_interval: '1d' }, plugins: [{ use: SCRIPTED_LIBRARY, config: files }] };
    try {
      const first = await startApp({ config: held });
      const sync = await api<{ job: Job }>(first.baseUrl, 'POST', '/api/v1/library/sync');
      assert.equal(sync.body.job.status, 'running');
      await first.close();

      const second = await startApp({ config: held });
      try {
        const job = await api<Job>(second.baseUrl, 'GET', `/api/v1/jobs/${sync.body.job.id}`);
        assert.equal(job.body.status, 'failed');
        assert.match(job.body.error ?? '', /shut down/);
        assert.equal((await api<Page<unknown>>(second.baseUrl, 'GET', '/api/v1/library')).body.total, 0);
      } finally {
        await second.close();
      }
    } finally {
      await rm(scripts, { recursive: true, force: true });
    }
  });
});
