import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { api, eventually } from '../../helpers/api-client.js';
import { readPluginEntries } from '../../helpers/read-stored.js';
import { startApp, type StartedApp } from '../../helpers/start-app.js';
import { writeAlbum } from '../../helpers/write-album.js';
import { candidate, SCRIPTED_SOURCE, sourceFiles, type SourceFiles } from './source-fixture.js';

interface Job {
  id: string;
  kind: string;
  status: string;
  source?: string;
  summary: Record<string, number>;
  progress?: { done: number; total?: number };
  eta?: string;
  error?: string;
}
interface SourceView {
  name: string;
  type: string;
  use?: string;
  enabled: boolean;
  schedule: string;
  running: Job | null;
  last_run: Job | null;
  last_completed_at: string | null;
  next_run_at: string | null;
}
interface QueueItem {
  id: string;
  artist: string;
  album?: string;
  source: string;
  score?: number;
  reasons?: { kind: string; text: string; refs: unknown[] }[];
}

async function waitForJob(app: StartedApp, id: string): Promise<Job> {
  return eventually(async () => {
    const job = (await api<Job>(app.baseUrl, 'GET', `/api/v1/jobs/${id}`)).body;
    return job.status === 'running' ? undefined : job;
  }, 10_000, `job ${id} to end`);
}

async function syncLibrary(app: StartedApp): Promise<void> {
  const started = await api<{ job: Job }>(app.baseUrl, 'POST', '/api/v1/library/sync');
  assert.equal(started.status, 202);
  assert.equal((await waitForJob(app, started.body.job.id)).status, 'completed');
}

describe('a third-party source loaded with use:', () => {
  let app: StartedApp;
  let picks: SourceFiles;
  let other: SourceFiles;
  const tri = candidate('Autechre', 'Tri Repetae', '1', 0.82);
  const geogaddi = candidate('Boards of Canada', 'Geogaddi', '2');
  const drukqs = candidate('Aphex Twin', 'Drukqs', '3');
  const figure = candidate('Plaid', 'Double Figure', '4');
  const invalid = { ...candidate('Broken', 'Score', '5'), score: 2 };

  before(async () => {
    picks = await sourceFiles({ candidates: [tri, geogaddi, drukqs, figure, invalid, { ...tri }], batch_size: 2 });
    other = await sourceFiles({ candidates: [] });
    app = await startApp({
      config: {
        sources: [
          { name: 'picks', use: SCRIPTED_SOURCE, schedule: 'manual', ...picks.config },
          { name: 'other', use: SCRIPTED_SOURCE, enabled: false, ...other.config },
        ],
      },
    });
    // The library owns two Boards of Canada albums (Geogaddi among them) and one by Low.
    const music = join(dirname(app.dataDir), 'music');
    await writeAlbum(join(music, 'Boards of Canada', 'Geogaddi'));
    await writeAlbum(join(music, 'Boards of Canada', 'Music Has the Right to Children'));
    await writeAlbum(join(music, 'Low', 'Double Negative'));
    await syncLibrary(app);
    // Drukqs was proposed and rejected before; Double Figure is on the wishlist.
    const proposed = await api<{ items: QueueItem[] }>(app.baseUrl, 'POST', '/api/v1/queue', { artist: 'Aphex Twin', album: 'Drukqs', mbid: drukqs.mbid });
    assert.equal(proposed.status, 201, JSON.stringify(proposed.body));
    const rejectedId = proposed.body.items[0]?.id;
    assert.ok(rejectedId);
    assert.equal((await api(app.baseUrl, 'POST', `/api/v1/queue/${rejectedId}/reject`)).status, 200);
    assert.equal((await api(app.baseUrl, 'POST', '/api/v1/wishlist', { artist: 'Plaid', album: 'Double Figure' })).status, 201);
  });
  after(async () => {
    await app.close();
    await picks.remove();
    await other.remove();
  });

  it('lists every configured source, with nothing run yet and no next run for a manual one', async () => {
    const answer = await api<{ items: SourceView[] }>(app.baseUrl, 'GET', '/api/v1/sources');
    assert.equal(answer.status, 200);
    assert.deepEqual(
      answer.body.items.map((s) => [s.name, s.type, s.enabled, s.schedule, s.running, s.last_run, s.next_run_at]),
      [
        ['picks', 'scripted-source', true, 'manual', null, null, null],
        ['other', 'scripted-source', false, '1d', null, null, null],
      ],
    );
    assert.equal(answer.body.items[0]?.use, SCRIPTED_SOURCE);
  });

  it('runs on POST /sources/{name}/run (202 with the job) and counts each candidate by where it already was', async () => {
    const started = await api<{ job: Job }>(app.baseUrl, 'POST', '/api/v1/sources/picks/run');
    assert.equal(started.status, 202);
    assert.equal(started.body.job.kind, 'source_run');
    assert.equal(started.body.job.source, 'picks');
    const job = await waitForJob(app, started.body.job.id);
    assert.equal(job.status, 'completed', job.error);
    assert.deepEqual(job.summary, { added: 1, duplicate: 2, owned: 1, rejected_before: 1, invalid: 1 });
  });

  it('puts what it added into the pending queue under the source name, with score and reasons', async () => {
    const pending = await api<{ items: QueueItem[] }>(app.baseUrl, 'GET', '/api/v1/queue/pending?source=picks');
    assert.equal(pending.status, 200);
    assert.equal(pending.body.items.length, 1);
    const [item] = pending.body.items;
    assert.equal(item?.artist, 'Autechre');
    assert.equal(item?.score, 0.82);
    assert.deepEqual(item?.reasons, tri.reasons);
    const all = await api<{ items: QueueItem[] }>(app.baseUrl, 'GET', '/api/v1/queue?status=pending');
    assert.deepEqual(all.body.items.find((i) => i.source === 'picks')?.reasons, tri.reasons);
  });

  it('answers known() from the same index: library, rejected, wishlist, and what the run itself added', async () => {
    const calls = await picks.calls();
    assert.deepEqual(
      calls.filter((c) => c.event === 'batch').map((c) => c.known),
      [[null, 'library'], ['rejected', 'wishlist'], [null, 'queue']],
    );
  });

  it('gives the source the library artists, most albums first', async () => {
    const start = (await picks.calls()).find((c) => c.event === 'start');
    assert.deepEqual(start?.artists, [{ name: 'Boards of Canada', albums: 2 }, { name: 'Low', albums: 1 }]);
    assert.equal(start?.last_completed_at, null);
  });

  it('shows the last run and when it completed in GET /sources', async () => {
    const { body } = await api<{ items: SourceView[] }>(app.baseUrl, 'GET', '/api/v1/sources');
    const picksView = body.items.find((s) => s.name === 'picks');
    assert.equal(picksView?.last_run?.status, 'completed');
    assert.deepEqual(picksView?.last_run?.summary, { added: 1, duplicate: 2, owned: 1, rejected_before: 1, invalid: 1 });
    assert.equal(typeof picksView?.last_completed_at, 'string');
    assert.equal(picksView?.running, null);
  });

  it('answers 409 with the running job while a run is in progress, shows its progress, and keeps its cursor in the storage of its own entry', async () => {
    await picks.script({ candidates: [candidate('Low', 'Hey What', '6'), candidate('Low', 'Ones and Sixes', '7')], batch_size: 1, hold_from: 1 });
    await picks.closeGate();
    const started = await api<{ job: Job }>(app.baseUrl, 'POST', '/api/v1/sources/picks/run');
    assert.equal(started.status, 202);
    const held = await eventually(async () => {
      const job = (await api<Job>(app.baseUrl, 'GET', `/api/v1/jobs/${started.body.job.id}`)).body;
      return job.summary.added === 1 ? job : undefined;
    }, 10_000, 'the first batch to be added');
    assert.deepEqual(held.progress, { done: 0, total: 2 });
    const again = await api<{ status: number; detail: string; job: Job }>(app.baseUrl, 'POST', '/api/v1/sources/picks/run');
    assert.equal(again.status, 409);
    assert.match(again.headers.get('content-type') ?? '', /application\/problem\+json/);
    assert.match(again.body.detail, /"picks" is already running/);
    assert.equal(again.body.job.id, started.body.job.id);
    const listed = await api<{ items: SourceView[] }>(app.baseUrl, 'GET', '/api/v1/sources');
    assert.equal(listed.body.items.find((s) => s.name === 'picks')?.running?.id, started.body.job.id);
    // The first batch taken, picks moved its cursor past it: committed under its own entry, none under the other.
    const cursor = await eventually(async () => (await readPluginEntries(app.dataDir, 'source-picks'))['cursor'], 10_000, 'the cursor of picks to be stored');
    assert.equal(cursor, 1);
    assert.deepEqual(await readPluginEntries(app.dataDir, 'source-other'), {});
    await picks.openGate();
    const job = await waitForJob(app, started.body.job.id);
    assert.equal(job.summary.added, 2);
    assert.equal(job.progress, undefined, 'an ended job carries no live progress');
  });

  it('hands the next run the time the last one completed', async () => {
    const starts = (await picks.calls()).filter((c) => c.event === 'start');
    assert.equal(starts.length, 2);
    assert.equal(typeof starts[1]?.last_completed_at, 'string');
  });

  it('answers 404 problem+json naming an unknown source', async () => {
    const answer = await api<{ detail: string }>(app.baseUrl, 'POST', '/api/v1/sources/nope/run');
    assert.equal(answer.status, 404);
    assert.match(answer.body.detail, /source "nope" does not exist/);
  });

  it('answers 409 for a disabled source and does not run it', async () => {
    const answer = await api<{ detail: string }>(app.baseUrl, 'POST', '/api/v1/sources/other/run');
    assert.equal(answer.status, 409);
    assert.match(answer.body.detail, /"other" is disabled/);
    assert.deepEqual(await other.calls(), []);
  });

  it('answers 400 naming the parameter for a name that cannot be a source', async () => {
    const answer = await api<{ errors: { path: string }[] }>(app.baseUrl, 'POST', '/api/v1/sources/Not_A_Name/run');
    assert.equal(answer.status, 400);
    assert.ok(answer.body.errors.some((e) => e.path.includes('name')), JSON.stringify(answer.body));
  });

  it('gives each entry of the same plugin its own instance (its storage: see the run in progress above)', async () => {
    const plugins = await api<{ items: { name: string }[] }>(app.baseUrl, 'GET', '/api/v1/plugins');
    const names = plugins.body.items.map((p) => p.name);
    assert.ok(names.includes('source-picks') && names.includes('source-other'), names.join(', '));
  });

  it('accepts reasons from POST /api/v1/queue too, and names a malformed one', async () => {
    const reasons = [{ kind: 'friend', text: 'Sam played it all summer', refs: [{ type: 'user', name: 'sam' }] }];
    const added = await api<{ items: QueueItem[] }>(app.baseUrl, 'POST', '/api/v1/queue', { artist: 'Stereolab', album: 'Dots and Loops', reasons });
    assert.equal(added.status, 201);
    assert.deepEqual(added.body.items[0]?.reasons, reasons);
    const bad = await api<{ errors: { path: string; message: string }[] }>(app.baseUrl, 'POST', '/api/v1/queue', { artist: 'Stereolab', album: 'Emperor Tomato Ketchup', reasons: [{ kind: 'friend', text: '' }] });
    assert.equal(bad.status, 400);
    assert.ok(bad.body.errors.some((e) => e.path.includes('reasons') && e.path.includes('text')), JSON.stringify(bad.body.errors));
  });
});

describe('a source whose candidates hold control characters', () => {
  it('proposes them without the control characters instead of failing the run, and matches what is known by those names', async (t) => {
    const files = await sourceFiles({ candidates: [candidate('Stereo\u0000lab', 'Dots and Loops', '6'), candidate('Broadcast\u001b', 'Tender\nButtons', '7')] });
    const app = await startApp({ config: { sources: [{ name: 'odd', use: SCRIPTED_SOURCE, schedule: 'manual', ...files.config }] } });
    t.after(async () => {
      await app.close();
      await files.remove();
    });
    assert.equal((await api(app.baseUrl, 'POST', '/api/v1/queue', { artist: 'Broadcast', album: 'Tender Buttons' })).status, 201);
    const started = await api<{ job: Job }>(app.baseUrl, 'POST', '/api/v1/sources/odd/run');
    const job = await waitForJob(app, started.body.job.id);
    assert.equal(job.status, 'completed', job.error);
    assert.deepEqual(job.summary, { added: 1, duplicate: 1, owned: 0, rejected_before: 0, invalid: 0 });
    const pending = await api<{ items: QueueItem[] }>(app.baseUrl, 'GET', '/api/v1/queue/pending?source=odd');
    assert.deepEqual(pending.body.items.map((i) => [i.artist, i.album]), [['Stereolab', 'Dots and Loops']]);
  });
});
