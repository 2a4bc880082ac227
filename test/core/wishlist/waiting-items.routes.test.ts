// start-app first: it loads reflect-metadata, which the decorated services imported below need.
import { startApp, type StartedApp } from '../../helpers/start-app.js';
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Job } from '../../../core/jobs/job.schema.js';
import { JobScheduler } from '../../../core/jobs/job-scheduler.js';
import type { WishlistItem } from '../../../core/wishlist/wishlist-item.schema.js';
import { api, eventually } from '../../helpers/api-client.js';
import { readDatabase } from '../../helpers/read-stored.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { recordEvents } from '../../helpers/record-events.js';
import { writeAlbum } from '../../helpers/write-album.js';

interface Page {
  items: WishlistItem[];
  total: number;
}

/** One download at a time, so every album added after the first waits for its first download. */
async function oneAtATime(t: TestContext): Promise<{ app: StartedApp; clock: ManualClock; root: string }> {
  const clock = new ManualClock(Date.now());
  const app = await startApp({ clock, config: { download_client: { quiet_period_ms: 0, max_active: 1, poll_interval: '1h' } } });
  t.after(() => app.close());
  return { app, clock, root: join(app.dataDir, '..') };
}

/** Committed items still waiting for their first download, and those handed off. */
const waitingAndHandedOff = (app: StartedApp) =>
  readDatabase(app.dataDir, (db) => [
    db.prepare('SELECT count(*) FROM wishlist_items WHERE entered_seq IS NULL').pluck().get(),
    db.prepare('SELECT count(*) FROM wishlist_items WHERE entered_seq IS NOT NULL').pluck().get(),
  ]);

const poll = (app: StartedApp) => app.crateflow.container.resolve(JobScheduler).runNow('download_poll');

async function want(app: StartedApp, album: string): Promise<WishlistItem> {
  const res = await api<WishlistItem>(app.baseUrl, 'POST', '/api/v1/wishlist', { artist: 'Band', album });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

const wishlist = async (app: StartedApp, query = '') => (await api<Page>(app.baseUrl, 'GET', `/api/v1/wishlist${query}`)).body;
const statuses = async (app: StartedApp) => (await wishlist(app)).items.map((i) => [i.album, i.status]);

describe('wishlist items waiting for their first download', () => {
  it('are handed to the download client oldest first as slots free up, moving out of the waiting list in the same commit', async (t) => {
    const { app, clock, root } = await oneAtATime(t);
    for (const album of ['One', 'Two', 'Three']) await want(app, album);
    await poll(app);
    assert.deepEqual(waitingAndHandedOff(app), [2, 1]);
    assert.deepEqual(await statuses(app), [['One', 'downloading'], ['Three', 'wanted'], ['Two', 'wanted']]);

    // One completes: its slot goes to Two, the album that has waited longest.
    await writeAlbum(join(root, 'complete', 'Band', 'One'), clock);
    await poll(app);
    await poll(app);
    assert.deepEqual(await statuses(app), [['Two', 'downloading'], ['One', 'downloaded'], ['Three', 'wanted']]);
    assert.deepEqual(waitingAndHandedOff(app), [1, 2]);
  });

  it('are removed by DELETE (once: then 404) and by a library sync that finds them, each with wishlist_removed', async (t) => {
    const { app, root } = await oneAtATime(t);
    const events = recordEvents(app);
    for (const album of ['One', 'Two', 'Three', 'Four']) await want(app, album);
    await poll(app);
    const waiting = (await wishlist(app, '?status=wanted')).items;
    const two = waiting.find((i) => i.album === 'Two');
    assert.ok(two);
    assert.equal((await api(app.baseUrl, 'DELETE', `/api/v1/wishlist/${two.id}`)).status, 204);
    const again = await api<{ status: number; detail: string }>(app.baseUrl, 'DELETE', `/api/v1/wishlist/${two.id}`);
    assert.equal(again.status, 404);

    await writeAlbum(join(root, 'music', 'Band', 'Three'));
    const started = await api<{ job: Job }>(app.baseUrl, 'POST', '/api/v1/library/sync');
    const job = await eventually(async () => {
      const res = await api<Job>(app.baseUrl, 'GET', `/api/v1/jobs/${started.body.job.id}`);
      return res.body.status === 'running' ? undefined : res.body;
    }, 10_000, 'the sync job');
    assert.equal(job.status, 'completed', JSON.stringify(job));
    assert.deepEqual(events.dataOf('wishlist_removed'), [{ artist: 'Band', album: 'Two' }, { artist: 'Band', album: 'Three' }]);
    assert.deepEqual(await statuses(app), [['One', 'downloading'], ['Four', 'wanted']]);
    // Removed albums are no longer wanted: they can be added again.
    assert.equal((await api(app.baseUrl, 'POST', '/api/v1/wishlist', { artist: 'Band', album: 'Two' })).status, 201);
    assert.equal((await api(app.baseUrl, 'POST', '/api/v1/wishlist', { artist: 'Band', album: 'Four' })).status, 409);
  });
});
