// start-app first: it loads reflect-metadata, which the decorated JobScheduler below needs.
import { startApp, type StartedApp } from '../../helpers/start-app.js';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import type { Download } from '../../../core/downloads/download.schema.js';
import { DownloadsTable } from '../../../core/downloads/downloads-table.js';
import { UnitOfWork } from '../../../core/events/unit-of-work.js';
import { JobScheduler } from '../../../core/jobs/job-scheduler.js';
import type { Job } from '../../../core/jobs/job.schema.js';
import { WishlistTable } from '../../../core/wishlist/wishlist-table.js';
import { startFakeSlskd } from '../../fakes/fake-slskd.js';
import { startFakeSubsonic, type FakeSubsonic } from '../../fakes/fake-subsonic.js';
import { generateAlbums, type FakeAlbum } from '../../fakes/generate-albums.js';
import { api, eventually } from '../../helpers/api-client.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { readDatabase } from '../../helpers/read-stored.js';
import { recordEvents } from '../../helpers/record-events.js';

const TRACKS = ['Quorum', 'Dancing and Blood', 'Fly'];
const OWNED = ownedAlbum();

function ownedAlbum(): FakeAlbum {
  const [generated] = generateAlbums(1);
  if (!generated) throw new Error('generateAlbums(1) gave no album');
  return { ...generated, artist: 'Low', name: 'Double Negative' };
}

async function startSubsonic(t: TestContext, albums: FakeAlbum[]): Promise<FakeSubsonic> {
  const subsonic = await startFakeSubsonic({ username: 'crate', password: 'secret', albums });
  t.after(() => subsonic.close());
  return subsonic;
}

const subsonicLibrary = (subsonic: FakeSubsonic) => ({ type: 'subsonic', url: subsonic.url, username: 'crate', password: 'secret', sync_interval: '1d' });
const poll = (app: StartedApp) => app.crateflow.container.resolve(JobScheduler).runNow('download_poll');

async function want(app: StartedApp, artist: string, album: string): Promise<string> {
  const res = await api<{ id: string }>(app.baseUrl, 'POST', '/api/v1/wishlist', { artist, album });
  assert.equal(res.status, 201);
  return res.body.id;
}

async function sync(app: StartedApp): Promise<Job> {
  const started = await api<{ job: Job }>(app.baseUrl, 'POST', '/api/v1/library/sync');
  assert.equal(started.status, 202);
  return eventually(async () => {
    const res = await api<Job>(app.baseUrl, 'GET', `/api/v1/jobs/${started.body.job.id}`);
    return res.body.status === 'running' ? undefined : res.body;
  }, 10_000, 'the sync job');
}

async function downloads(app: StartedApp): Promise<Download[]> {
  return (await api<{ items: Download[] }>(app.baseUrl, 'GET', '/api/v1/downloads')).body.items;
}

describe('library sync removals cancel downloads like DELETE /api/v1/wishlist/{id}', () => {
  it('removes the blackhole request file of an album the sync found, and keeps the request of one it did not', async (t) => {
    const subsonic = await startSubsonic(t, [OWNED]);
    const clock = new ManualClock(Date.now());
    const app = await startApp({ clock, config: { library: subsonicLibrary(subsonic) } });
    t.after(() => app.close());
    const events = recordEvents(app);
    const requests = join(app.dataDir, '..', 'requests');
    await want(app, 'Low', 'Double Negative');
    await want(app, 'Ride', 'Nowhere');
    await poll(app);
    assert.equal((await readdir(requests)).length, 2);

    const job = await sync(app);
    assert.equal(job.status, 'completed', job.error);
    assert.deepEqual(job.summary, { albums: 1, removed: 1, skipped: 0 });
    const left = await readdir(requests);
    assert.equal(left.length, 1);
    assert.match(left[0] ?? '', /Ride/);
    assert.deepEqual((await downloads(app)).map((d) => d.artist), ['Ride']);
    assert.deepEqual(events.dataOf('wishlist_removed'), [{ artist: 'Low', album: 'Double Negative' }]);
  });

  it('cancels the slskd transfers of an album the sync found', async (t) => {
    const downloadsDir = await mkdtemp(join(tmpdir(), 'crateflow-sync-cancel-'));
    // Transfers move on only when polled, and stay InProgress long enough to be cancelled mid-way.
    const slskd = await startFakeSlskd({
      downloadsDir, inProgressSteps: 50,
      peers: [{ username: 'steady peer', files: TRACKS.map((title, i) => ({ filename: `@@s\\Music\\Low\\Double Negative\\0${i + 1} - ${title}.flac`, size: 40_000 + i })) }],
    });
    t.after(async () => {
      await slskd.close();
      await rm(downloadsDir, { recursive: true, force: true });
    });
    const subsonic = await startSubsonic(t, [OWNED]);
    const clock = new ManualClock(Date.now());
    const app = await startApp({
      clock,
      config: { download_client: { type: 'slskd', url: slskd.url, api_key: slskd.apiKey, downloads_dir: downloadsDir }, library: subsonicLibrary(subsonic) },
    });
    t.after(() => app.close());
    await want(app, 'Low', 'Double Negative');
    await eventually(async () => {
      await poll(app);
      await clock.advance(1000);
      return (await downloads(app))[0]?.state === 'downloading' ? true : undefined;
    }, 10_000, 'the slskd download to start');
    assert.equal(slskd.received.filter((r) => r.method === 'DELETE' && r.path.startsWith('/api/v0/transfers/downloads/')).length, 0);

    const job = await sync(app);
    assert.equal(job.status, 'completed', job.error);
    assert.equal(job.summary['removed'], 1);
    const cancels = slskd.received.filter((r) => r.method === 'DELETE' && r.path.startsWith('/api/v0/transfers/downloads/steady%20peer/'));
    assert.equal(cancels.length, TRACKS.length, 'one DELETE per transfer of the album');
    assert.deepEqual(await downloads(app), []);
  });

  it('moves the finished downloads of albums it took off the wishlist to the archive, where they stay listed across a restart', async (t) => {
    const subsonic = await startSubsonic(t, [OWNED]);
    const dataDir = await mkdtemp(join(tmpdir(), 'crateflow-archive-'));
    t.after(() => rm(dataDir, { recursive: true, force: true }));
    const config = { storage: { dir: dataDir }, library: subsonicLibrary(subsonic) };
    const app = await startApp({ config });
    // Five copies of the owned album downloaded (as a year of downloads would leave them), and one never started.
    const { container } = app.crateflow;
    const [wishlist, downloadsTable] = [container.resolve(WishlistTable), container.resolve(DownloadsTable)];
    await container.resolve(UnitOfWork).mutate(() => {
      for (let i = 0; i < 5; i++) {
        const at = new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString();
        const path = `/music/Low/Double Negative ${i}`;
        const wanted = { id: `w${i}`, artist: 'Low', album: 'Double Negative', type: 'album', status: 'wanted', added_at: at } as const;
        wishlist.insertWaiting(wanted);
        wishlist.enter({ ...wanted, status: 'downloaded', download_path: path });
        downloadsTable.insert({
          id: `d${i}`, wishlist_id: `w${i}`, artist: 'Low', album: 'Double Negative', client: 'download-blackhole', state: 'completed',
          progress: 1, attempts: 1, created_at: at, updated_at: at, download_path: path,
        });
      }
      // Written directly: the album is already wanted five times over, so POST /wishlist would answer 409.
      wishlist.insertWaiting({ id: 'w5', artist: 'Low', album: 'Double Negative', type: 'album', status: 'wanted', added_at: new Date(Date.UTC(2025, 0, 2)).toISOString() });
    });

    const job = await sync(app);
    assert.equal(job.status, 'completed', job.error);
    assert.deepEqual(job.summary, { albums: 1, removed: 6, skipped: 0 });
    const live = readDatabase(app.dataDir, (db) => db.prepare('SELECT count(*) FROM downloads WHERE archived_seq IS NULL').pluck().get());
    assert.equal(live, 0, 'no finished download is left among the live ones');
    const expected = ['d4', 'd3', 'd2', 'd1', 'd0'];
    const listed = async (query: string) => (await api<{ items: Download[]; total: number }>(app.baseUrl, 'GET', `/api/v1/downloads${query}`)).body;
    assert.deepEqual((await listed('?status=completed&limit=2&offset=1')).items.map((d) => d.id), expected.slice(1, 3));
    assert.equal((await listed('?status=failed')).total, 0);
    const stats = await api<{ downloads: Record<string, number> }>(app.baseUrl, 'GET', '/api/v1/stats');
    assert.equal(stats.body.downloads.completed, 5, 'the dashboard counts archived downloads too');
    const retry = await api<{ detail: string }>(app.baseUrl, 'POST', '/api/v1/downloads/d2/retry');
    assert.equal(retry.status, 409, 'an archived download is finished, not unknown');
    assert.match(retry.body.detail, /is completed; only failed downloads can be retried/);
    await app.close();

    const restarted = await startApp({ config });
    t.after(() => restarted.close());
    const after = (await api<{ items: Download[]; total: number }>(restarted.baseUrl, 'GET', '/api/v1/downloads')).body;
    assert.deepEqual([after.total, after.items.map((d) => d.id)], [5, expected]);
    assert.equal(after.items[0]?.download_path, '/music/Low/Double Negative 4');
  });
});
