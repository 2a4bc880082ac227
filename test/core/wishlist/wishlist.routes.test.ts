// start-app first: it loads reflect-metadata, which the decorated services imported below need.
import { startApp, type StartedApp } from '../../helpers/start-app.js';
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Download } from '../../../core/downloads/download.schema.js';
import { JobScheduler } from '../../../core/jobs/job-scheduler.js';
import type { WishlistItem } from '../../../core/wishlist/wishlist-item.schema.js';
import { api, eventually } from '../../helpers/api-client.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { recordEvents } from '../../helpers/record-events.js';
import { writeAlbum } from '../../helpers/write-album.js';

interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}
interface Problem {
  status: number;
  detail: string;
  errors?: { path: string; message: string }[];
  wishlist_id?: string;
}

const MBID = '0e9b3b0a-6b3e-4a8f-9d3c-1c2b3a4d5e6f';

/** An app with the blackhole client (complete as soon as a folder appears) and a clock that moves only when told. */
async function freshApp(t: TestContext, maxActive = 5): Promise<{ app: StartedApp; clock: ManualClock; root: string }> {
  const clock = new ManualClock(Date.now());
  const app = await startApp({ clock, config: { download_client: { quiet_period_ms: 0, max_active: maxActive } } });
  t.after(() => app.close());
  return { app, clock, root: join(app.dataDir, '..') };
}

async function want(app: StartedApp, body: Record<string, unknown>): Promise<WishlistItem> {
  const res = await api<WishlistItem>(app.baseUrl, 'POST', '/api/v1/wishlist', body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

const list = (app: StartedApp, query = '') => api<Page<WishlistItem>>(app.baseUrl, 'GET', `/api/v1/wishlist${query}`);
const poll = (app: StartedApp) => app.crateflow.container.resolve(JobScheduler).runNow('download_poll');

describe('GET /api/v1/wishlist', () => {
  it('lists the items with a download first, then those waiting for one, each newest first, with limit, offset and an exact total', async (t) => {
    const { app, clock } = await freshApp(t, 1);
    for (const album of ['One', 'Two', 'Three', 'Four', 'Five']) {
      await want(app, { artist: 'Band', album });
      await clock.advance(1000);
    }
    // One download at a time: One is handed to the client at once, the other four wait (in wishlist-waiting.jsonl).
    await eventually(async () => ((await list(app, '?status=downloading')).body.total === 1 ? true : undefined), 5000, 'the hand-off of One');
    const first = await list(app, '?limit=2');
    assert.deepEqual([first.body.total, first.body.limit, first.body.offset], [5, 2, 0]);
    assert.deepEqual(first.body.items.map((i) => [i.album, i.status]), [['One', 'downloading'], ['Five', 'wanted']]);
    assert.deepEqual((await list(app, '?limit=2&offset=2')).body.items.map((i) => i.album), ['Four', 'Three']);
    const last = await list(app, '?limit=2&offset=4');
    assert.deepEqual(last.body.items.map((i) => i.album), ['Two']);
    assert.equal(last.body.total, 5);
    assert.deepEqual((await list(app, '?offset=5')).body.items, []);
    const wanted = await list(app, '?status=wanted&offset=1&limit=2');
    assert.deepEqual([wanted.body.total, wanted.body.items.map((i) => i.album)], [4, ['Four', 'Three']]);
  });

  it('filters by status as items move from wanted to downloading to downloaded', async (t) => {
    const { app, clock, root } = await freshApp(t, 2);
    for (const album of ['One', 'Two', 'Three', 'Four']) {
      await want(app, { artist: 'Band', album });
      await clock.advance(1000);
    }
    await poll(app);
    await writeAlbum(join(root, 'complete', 'Band', 'One'), clock);
    await poll(app);

    const byStatus = async (status: string) => (await list(app, `?status=${status}`)).body;
    assert.deepEqual((await byStatus('wanted')).items.map((i) => i.album), ['Four', 'Three']);
    assert.deepEqual((await byStatus('downloading')).items.map((i) => i.album), ['Two']);
    const downloaded = await byStatus('downloaded');
    assert.deepEqual(downloaded.items.map((i) => [i.album, i.download_path]), [['One', join(root, 'complete', 'Band', 'One')]]);
    assert.equal((await byStatus('failed')).total, 0);
    assert.equal((await list(app)).body.total, 4);
  });

  it('answers 400 naming query.status for an unknown status and query.limit for 0', async (t) => {
    const { app } = await freshApp(t);
    const status = await api<Problem>(app.baseUrl, 'GET', '/api/v1/wishlist?status=lost');
    assert.equal(status.status, 400);
    assert.ok(status.body.errors?.some((e) => e.path === 'query.status'), JSON.stringify(status.body));
    const limit = await api<Problem>(app.baseUrl, 'GET', '/api/v1/wishlist?limit=0');
    assert.ok(limit.body.errors?.some((e) => e.path === 'query.limit'), JSON.stringify(limit.body));
  });
});

describe('POST /api/v1/wishlist', () => {
  it('adds an item straight to the wishlist: 201 with status wanted, the type derived, no queue entry', async (t) => {
    const { app, clock } = await freshApp(t);
    const res = await api<WishlistItem>(app.baseUrl, 'POST', '/api/v1/wishlist', { artist: 'Low', album: 'Double Negative', mbid: MBID, year: 2018, source: 'manual' });
    assert.equal(res.status, 201);
    assert.deepEqual({ ...res.body, id: 'ID' }, {
      id: 'ID', artist: 'Low', album: 'Double Negative', mbid: MBID, year: 2018, type: 'album', status: 'wanted', added_at: new Date(clock.now()).toISOString(),
    });
    const track = await want(app, { artist: 'Slowdive', title: 'Alison' });
    assert.equal(track.type, 'track');
    assert.equal((await api<Page<unknown>>(app.baseUrl, 'GET', '/api/v1/queue/pending')).body.total, 0);
  });

  it('answers 409 with the existing id when the album is already wanted, by mbid or by normalised name', async (t) => {
    const { app } = await freshApp(t);
    const first = await want(app, { artist: 'The Sigur Rós', album: 'Ágætis byrjun', mbid: MBID });
    for (const body of [
      { artist: 'sigur ros', album: 'Agaetis Byrjun (Deluxe Edition)' },
      { artist: 'Someone', album: 'Else', mbid: MBID.toUpperCase() },
    ]) {
      const res = await api<Problem>(app.baseUrl, 'POST', '/api/v1/wishlist', body);
      assert.equal(res.status, 409, JSON.stringify(body));
      assert.equal(res.body.status, 409);
      assert.equal(res.body.wishlist_id, first.id);
    }
    assert.equal((await list(app)).body.total, 1);
  });

  it('answers 409 when an album already approved from the queue is added again', async (t) => {
    const { app } = await freshApp(t);
    const added = await api<{ items: { id: string }[] }>(app.baseUrl, 'POST', '/api/v1/queue', { artist: 'Low', album: 'Double Negative' });
    await api(app.baseUrl, 'POST', `/api/v1/queue/${added.body.items[0]?.id}/approve`);
    const res = await api<Problem>(app.baseUrl, 'POST', '/api/v1/wishlist', { artist: 'Low', album: 'Double Negative' });
    assert.equal(res.status, 409);
  });

  it('adds an album the queue holds as rejected: the person asked for it directly', async (t) => {
    const { app } = await freshApp(t);
    const added = await api<{ items: { id: string }[] }>(app.baseUrl, 'POST', '/api/v1/queue', { artist: 'Low', album: 'Double Negative' });
    await api(app.baseUrl, 'POST', `/api/v1/queue/${added.body.items[0]?.id}/reject`);
    await want(app, { artist: 'Low', album: 'Double Negative' });
  });

  it('answers 409 when the album is already in the library', async (t) => {
    const { app, root } = await freshApp(t);
    await writeAlbum(join(root, 'music', 'Low', 'Double Negative', 'CD1'), undefined, '01.mp3');
    const sync = await api<{ job: { id: string } }>(app.baseUrl, 'POST', '/api/v1/library/sync');
    await eventually(async () => ((await api<{ status: string }>(app.baseUrl, 'GET', `/api/v1/jobs/${sync.body.job.id}`)).body.status === 'completed' ? true : undefined));
    const res = await api<Problem>(app.baseUrl, 'POST', '/api/v1/wishlist', { artist: 'LOW', album: 'Double Negative [Remastered 2011]' });
    assert.equal(res.status, 409);
    assert.match(res.body.detail, /library/);
  });

  it('answers 400 naming the field of a bad body', async (t) => {
    const { app } = await freshApp(t);
    const res = await api<Problem>(app.baseUrl, 'POST', '/api/v1/wishlist', { album: 'No artist', mbid: 'not-an-mbid', year: 'soon' });
    assert.equal(res.status, 400);
    const paths = res.body.errors?.map((e) => e.path) ?? [];
    assert.ok(paths.includes('body.year') && paths.includes('body.mbid'), JSON.stringify(res.body.errors));
    // Without an mbid to look up, the artist is required.
    const noArtist = await api<Problem>(app.baseUrl, 'POST', '/api/v1/wishlist', { album: 'No artist' });
    assert.equal(noArtist.status, 400);
    assert.deepEqual(noArtist.body.errors?.map((e) => e.path), ['body.artist']);
  });

  it('answers 400 naming the field for a NUL in artist or album, and stores nothing', async (t) => {
    const { app } = await freshApp(t);
    const res = await api<Problem>(app.baseUrl, 'POST', '/api/v1/wishlist', { artist: 'Lo\u0000w', album: 'Double Negative' });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.errors, [{ path: 'body.artist', message: 'must not contain control characters (such as NUL, a tab or a line break)' }]);
    const album = await api<Problem>(app.baseUrl, 'POST', '/api/v1/wishlist', { artist: 'Low', album: 'Double\u0000Negative' });
    assert.deepEqual(album.body.errors?.map((e) => e.path), ['body.album']);
    assert.equal((await api<{ total: number }>(app.baseUrl, 'GET', '/api/v1/wishlist')).body.total, 0);
  });
});

describe('DELETE /api/v1/wishlist/:id', () => {
  it('answers 204, removes the item and fires wishlist_removed with artist, album and mbid', async (t) => {
    const { app } = await freshApp(t);
    const events = recordEvents(app);
    const item = await want(app, { artist: 'Low', album: 'Double Negative', mbid: MBID });
    const plain = await want(app, { artist: 'Slowdive', title: 'Alison' });
    const res = await api(app.baseUrl, 'DELETE', `/api/v1/wishlist/${item.id}`);
    assert.equal(res.status, 204);
    assert.equal(res.body, undefined);
    assert.equal((await api(app.baseUrl, 'DELETE', `/api/v1/wishlist/${plain.id}`)).status, 204);
    assert.deepEqual(events.dataOf('wishlist_removed'), [{ artist: 'Low', album: 'Double Negative', mbid: MBID }, { artist: 'Slowdive', title: 'Alison', type: 'track' }]);
    assert.equal((await list(app)).body.total, 0);
    await want(app, { artist: 'Low', album: 'Double Negative', mbid: MBID });
  });

  it('cancels the item\'s download: the blackhole request file and the download record are gone', async (t) => {
    const { app, root } = await freshApp(t);
    const item = await want(app, { artist: 'Low', album: 'Double Negative' });
    await poll(app);
    assert.equal((await readdir(join(root, 'requests'))).length, 1);
    assert.equal((await api<Page<Download>>(app.baseUrl, 'GET', '/api/v1/downloads')).body.total, 1);
    assert.equal((await api(app.baseUrl, 'DELETE', `/api/v1/wishlist/${item.id}`)).status, 204);
    assert.deepEqual(await readdir(join(root, 'requests')), []);
    assert.equal((await api<Page<Download>>(app.baseUrl, 'GET', '/api/v1/downloads')).body.total, 0);
  });

  it('answers 404 problem+json naming an unknown id, and fires nothing', async (t) => {
    const { app } = await freshApp(t);
    const events = recordEvents(app);
    const res = await api<Problem & { id: string }>(app.baseUrl, 'DELETE', '/api/v1/wishlist/nosuchitem');
    assert.equal(res.status, 404);
    assert.equal(res.headers.get('content-type'), 'application/problem+json');
    assert.equal(res.body.id, 'nosuchitem');
    assert.deepEqual(events.events, []);
  });
});
