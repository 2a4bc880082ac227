// start-app first: it loads reflect-metadata, which the decorated JobScheduler below needs.
import { startApp, type StartedApp } from '../../helpers/start-app.js';
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LibraryAlbum } from '@crateflow/sdk';
import type { Download } from '../../../core/downloads/download.schema.js';
import { JobScheduler } from '../../../core/jobs/job-scheduler.js';
import type { Job } from '../../../core/jobs/job.schema.js';
import type { WishlistItem } from '../../../core/wishlist/wishlist-item.schema.js';
import { api, eventually } from '../../helpers/api-client.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { recordEvents } from '../../helpers/record-events.js';
import { writeAlbum } from '../../helpers/write-album.js';

const PLUGIN = fileURLToPath(new URL('../../fixtures/plugins/scripted-library.ts', import.meta.url));
const MBID = '0e9b3b0a-6b3e-4a8f-9d3c-1c2b3a4d5e6f';

interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}
interface LibraryPage extends Page<LibraryAlbum> {
  synced_at: string | null;
}
interface Problem {
  status: number;
  detail: string;
  errors?: { path: string; message: string }[];
}

interface ScriptedLibraryApp {
  app: StartedApp;
  clock: ManualClock;
  /** What the next sync reads: its albums, or the error it fails with. */
  script(script: { albums?: LibraryAlbum[]; fail?: string }): Promise<void>;
  /** Holds every sync until `release()`. */
  hold(): Promise<void>;
  release(): Promise<void>;
  /** How many times the server called albums(). */
  calls(): Promise<number>;
}

/** An app whose library backend is the scripted fixture plugin, with a manual clock (no scheduled sync runs by itself). */
async function startScriptedLibraryApp(t: TestContext): Promise<ScriptedLibraryApp> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-library-script-'));
  const files = { script_file: join(dir, 'script.json'), gate_file: join(dir, 'gate'), calls_file: join(dir, 'calls') };
  await writeFile(files.script_file, '{}');
  const clock = new ManualClock(Date.now());
  const app = await startApp({ clock, config: { library: { type: 'scripted-library', sync_interval: '6h' }, plugins: [{ use: PLUGIN, config: files }] } });
  t.after(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });
  return {
    app,
    clock,
    script: (script) => writeFile(files.script_file, JSON.stringify(script)),
    hold: () => writeFile(files.gate_file, ''),
    release: () => rm(files.gate_file, { force: true }),
    calls: async () => {
      const text = await readFile(files.calls_file, 'utf8').catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return ''; // no sync has started yet
        throw err;
      });
      return text.split('\n').filter(Boolean).length;
    },
  };
}

const startSync = (app: StartedApp) => api<{ job: Job }>(app.baseUrl, 'POST', '/api/v1/library/sync');

async function finished(app: StartedApp, id: string): Promise<Job> {
  return eventually(async () => {
    const res = await api<Job>(app.baseUrl, 'GET', `/api/v1/jobs/${id}`);
    assert.equal(res.status, 200);
    return res.body.status === 'running' ? undefined : res.body;
  }, 5000, `job ${id} to finish`);
}

describe('POST /api/v1/library/sync', () => {
  it('answers 202 with a running job, which completes with a summary of albums read and wishlist items removed', async (t) => {
    const s = await startScriptedLibraryApp(t);
    await s.script({ albums: [{ artist: 'Low', album: 'Double Negative' }, { artist: 'Slowdive', album: 'Souvlaki', mbid: MBID }, { artist: 'Ride', album: 'Nowhere' }] });
    const res = await startSync(s.app);
    assert.equal(res.status, 202);
    assert.deepEqual([res.body.job.kind, res.body.job.status, res.body.job.trigger], ['library_sync', 'running', 'manual']);
    const job = await finished(s.app, res.body.job.id);
    assert.equal(job.status, 'completed');
    assert.deepEqual(job.summary, { albums: 3, removed: 0, skipped: 0 });
    assert.equal(job.started_at, new Date(s.clock.now()).toISOString());
    assert.equal(job.finished_at, job.started_at);
    const listed = await api<Page<Job>>(s.app.baseUrl, 'GET', '/api/v1/jobs?kind=library_sync');
    assert.deepEqual(listed.body.items.map((j) => j.id), [job.id]);
  });

  it('removes every wishlist item the library now holds, fires wishlist_removed for each, and keeps the others', async (t) => {
    const s = await startScriptedLibraryApp(t);
    const events = recordEvents(s.app);
    const wanted = async (body: Record<string, unknown>) => (await api<WishlistItem>(s.app.baseUrl, 'POST', '/api/v1/wishlist', body)).body;
    await wanted({ artist: 'The Low', album: 'Double Negative (Deluxe Edition)' });
    await wanted({ artist: 'Someone', album: 'Tagged Differently', mbid: MBID });
    const kept = await wanted({ artist: 'Ride', album: 'Nowhere' });
    await s.script({ albums: [{ artist: 'Low', album: 'Double Negative' }, { artist: 'Slowdive', album: 'Souvlaki', mbid: MBID.toUpperCase() }] });
    const job = await finished(s.app, (await startSync(s.app)).body.job.id);
    assert.deepEqual(job.summary, { albums: 2, removed: 2, skipped: 0 });
    assert.deepEqual(events.dataOf('wishlist_removed'), [
      { artist: 'The Low', album: 'Double Negative (Deluxe Edition)' },
      { artist: 'Someone', album: 'Tagged Differently', mbid: MBID },
    ]);
    const left = await api<Page<WishlistItem>>(s.app.baseUrl, 'GET', '/api/v1/wishlist');
    assert.deepEqual(left.body.items.map((i) => i.id), [kept.id]);
  });

  it('takes control characters out of a backend\'s names instead of failing the sync, and matches the wishlist by the names without them', async (t) => {
    const s = await startScriptedLibraryApp(t);
    await api(s.app.baseUrl, 'POST', '/api/v1/wishlist', { artist: 'Low', album: 'Double Negative' });
    await s.script({ albums: [{ artist: 'Low\u0000', album: 'Double\u0007 Negative', artists: ['Lo\u001bw'] }, { artist: 'Ride', album: 'Nowhere\n' }] });
    const job = await finished(s.app, (await startSync(s.app)).body.job.id);
    assert.deepEqual([job.status, job.summary], ['completed', { albums: 2, removed: 1, skipped: 0 }]);
    const library = await api<LibraryPage>(s.app.baseUrl, 'GET', '/api/v1/library');
    assert.deepEqual(library.body.items, [{ artist: 'Low', album: 'Double Negative', artists: ['Low'] }, { artist: 'Ride', album: 'Nowhere' }]);
  });

  it('never runs two syncs at once: requests during a sync, even simultaneous ones, get the running job', async (t) => {
    const s = await startScriptedLibraryApp(t);
    await s.script({ albums: [{ artist: 'Low', album: 'Double Negative' }] });
    await s.hold();
    const [first, second] = await Promise.all([startSync(s.app), startSync(s.app)]);
    assert.equal(first.status, 202);
    assert.equal(second.body.job.id, first.body.job.id);
    const third = await startSync(s.app);
    assert.equal(third.body.job.id, first.body.job.id);
    await s.clock.advance(6 * 3_600_000); // the scheduled sync falls due meanwhile
    assert.equal(await s.calls(), 1);
    const running = await api<Page<Job>>(s.app.baseUrl, 'GET', '/api/v1/jobs?kind=library_sync');
    assert.deepEqual(running.body.items.map((j) => j.status), ['running']);

    await s.release();
    assert.equal((await finished(s.app, first.body.job.id)).status, 'completed');
    const next = await startSync(s.app);
    assert.notEqual(next.body.job.id, first.body.job.id);
    await finished(s.app, next.body.job.id);
    assert.equal(await s.calls(), 2);
  });

  it('marks the job failed with the backend\'s error and keeps the previous catalogue', async (t) => {
    const s = await startScriptedLibraryApp(t);
    await s.script({ albums: [{ artist: 'Low', album: 'Double Negative' }] });
    await finished(s.app, (await startSync(s.app)).body.job.id);
    const before = await api<LibraryPage>(s.app.baseUrl, 'GET', '/api/v1/library');

    await s.script({ fail: 'the server answered 503' });
    await s.clock.advance(1000);
    const job = await finished(s.app, (await startSync(s.app)).body.job.id);
    assert.equal(job.status, 'failed');
    assert.match(job.error ?? '', /scripted-library/);
    assert.match(job.error ?? '', /the server answered 503/);
    assert.ok(job.finished_at);
    const after = await api<LibraryPage>(s.app.baseUrl, 'GET', '/api/v1/library');
    assert.deepEqual(after.body, before.body);
    assert.equal(after.body.total, 1);
    const wishlist = await api(s.app.baseUrl, 'POST', '/api/v1/wishlist', { artist: 'Low', album: 'Double Negative' });
    assert.equal(wishlist.status, 409, 'the kept catalogue still counts as owned');
  });

  it('fails the job when the filesystem library folder cannot be read', async (t) => {
    const app = await startApp({ config: { library: { sync_interval: '1d' } } });
    t.after(() => app.close());
    // The test app starts with its (empty) default music folder, as a first start does; put a file in its place.
    await rm(join(app.dataDir, '..', 'music'), { recursive: true });
    await writeFile(join(app.dataDir, '..', 'music'), 'a file where the folder should be');
    const job = await finished(app, (await startSync(app)).body.job.id);
    assert.equal(job.status, 'failed');
    assert.match(job.error ?? '', /ENOTDIR/);
  });

  it('deletes unfinished downloads of the removed items and keeps completed ones', async (t) => {
    const clock = new ManualClock(Date.now());
    const app = await startApp({ clock, config: { download_client: { quiet_period_ms: 0 }, library: { sync_interval: '1d' } } });
    t.after(() => app.close());
    const root = join(app.dataDir, '..');
    await api(app.baseUrl, 'POST', '/api/v1/wishlist', { artist: 'Low', album: 'Double Negative' });
    await api(app.baseUrl, 'POST', '/api/v1/wishlist', { artist: 'Ride', album: 'Nowhere' });
    const poll = () => app.crateflow.container.resolve(JobScheduler).runNow('download_poll');
    await poll();
    await writeAlbum(join(root, 'complete', 'Low', 'Double Negative'), clock);
    await poll();
    assert.deepEqual((await api<Page<Download>>(app.baseUrl, 'GET', '/api/v1/downloads')).body.items.map((d) => [d.artist, d.state]), [['Ride', 'queued'], ['Low', 'completed']]);
    await writeAlbum(join(root, 'music', 'Low', 'Double Negative'));
    await writeAlbum(join(root, 'music', 'Ride', 'Nowhere'));
    const job = await finished(app, (await startSync(app)).body.job.id);
    assert.deepEqual(job.summary, { albums: 2, removed: 2, skipped: 0 });
    const downloads = await api<Page<Download>>(app.baseUrl, 'GET', '/api/v1/downloads');
    assert.deepEqual(downloads.body.items.map((d) => [d.artist, d.state]), [['Low', 'completed']]);
  });
});

describe('GET /api/v1/library', () => {
  it('is empty with synced_at null before the first sync', async (t) => {
    const s = await startScriptedLibraryApp(t);
    const res = await api<LibraryPage>(s.app.baseUrl, 'GET', '/api/v1/library');
    assert.deepEqual(res.body, { items: [], total: 0, limit: 50, offset: 0, synced_at: null });
  });

  it('pages through the albums of the last sync by artist then album, with an exact total, and searches them with q', async (t) => {
    const s = await startScriptedLibraryApp(t);
    const albums: LibraryAlbum[] = [
      { artist: 'slowdive', album: 'Souvlaki' },
      { artist: 'Low', album: 'Things We Lost in the Fire' },
      { artist: 'Sigur Rós', album: 'Ágætis byrjun', mbid: MBID },
      { artist: 'Low', album: 'Double Negative', year: 2018 },
      { artist: 'Ride', album: 'Nowhere' },
      { artist: 'Ride', album: 'Carnival of Light' },
    ];
    await s.script({ albums });
    await finished(s.app, (await startSync(s.app)).body.job.id);
    const all = await api<LibraryPage>(s.app.baseUrl, 'GET', '/api/v1/library');
    assert.deepEqual(all.body.items.map((a) => `${a.artist} / ${a.album}`), [
      'Low / Double Negative', 'Low / Things We Lost in the Fire', 'Ride / Carnival of Light', 'Ride / Nowhere', 'Sigur Rós / Ágætis byrjun', 'slowdive / Souvlaki',
    ]);
    const page = await api<LibraryPage>(s.app.baseUrl, 'GET', '/api/v1/library?limit=2&offset=2');
    assert.deepEqual([page.body.total, page.body.limit, page.body.offset], [6, 2, 2]);
    assert.deepEqual(page.body.items, [albums[5], albums[4]]);
    assert.equal(page.body.synced_at, new Date(s.clock.now()).toISOString());

    const search = async (q: string) => (await api<LibraryPage>(s.app.baseUrl, 'GET', `/api/v1/library?q=${encodeURIComponent(q)}`)).body;
    assert.deepEqual((await search('low')).items.map((a) => a.album), ['Double Negative', 'Things We Lost in the Fire']);
    assert.deepEqual((await search('low fire')).items.map((a) => a.album), ['Things We Lost in the Fire']);
    assert.deepEqual((await search('SIGUR agaetis')).items.map((a) => a.album), ['Ágætis byrjun']);
    assert.equal((await search('nothing like this')).total, 0);
  });

  it('answers 400 naming query.limit for a limit of 0 or 501', async (t) => {
    const s = await startScriptedLibraryApp(t);
    for (const limit of [0, 501]) {
      const res = await api<Problem>(s.app.baseUrl, 'GET', `/api/v1/library?limit=${limit}`);
      assert.equal(res.status, 400);
      assert.ok(res.body.errors?.some((e) => e.path === 'query.limit'), JSON.stringify(res.body));
    }
  });
});

describe('GET /api/v1/jobs/:id', () => {
  it('answers 404 problem+json naming an unknown job', async (t) => {
    const s = await startScriptedLibraryApp(t);
    const res = await api<Problem & { id: string }>(s.app.baseUrl, 'GET', '/api/v1/jobs/nosuchjob');
    assert.equal(res.status, 404);
    assert.equal(res.headers.get('content-type'), 'application/problem+json');
    assert.equal(res.body.id, 'nosuchjob');
  });
});
