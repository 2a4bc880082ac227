import { startScriptedDownloadsApp } from './scripted-downloads-app.js';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Job } from '../../../core/jobs/job.schema.js';
import { api, eventually } from '../../helpers/api-client.js';
import { readDatabase } from '../../helpers/read-stored.js';
import { recordEvents } from '../../helpers/record-events.js';

const MBID = '0e9b3b0a-6b3e-4a8f-9d3c-1c2b3a4d5e6f';

describe('DownloadService (the download_poll job)', () => {
  it('hands a wanted item to the client, follows its progress, and completes it with the client\'s path', async (t) => {
    const s = await startScriptedDownloadsApp(t);
    const events = recordEvents(s.app);
    await s.script({ Low: { status: [{ state: 'downloading', progress: 0.4 }, { state: 'completed', progress: 1, download_path: '/music/in/Low/Double Negative' }] } });
    const item = await s.want('Low', 'Double Negative', { mbid: MBID });

    await s.poll();
    const [queued] = await s.downloads();
    assert.ok(queued);
    assert.deepEqual([queued.wishlist_id, queued.artist, queued.album, queued.client, queued.state, queued.progress, queued.attempts], [item.id, 'Low', 'Double Negative', 'scripted-downloads', 'queued', 0, 1]);
    assert.equal(queued.client_ref, `${item.id}#1`);
    assert.equal((await s.wishlistItem(item.id))?.status, 'downloading');

    await s.poll();
    assert.deepEqual((await s.downloads()).map((d) => [d.state, d.progress]), [['downloading', 0.4]]);
    assert.deepEqual(events.dataOf('download_completed'), []);

    await s.poll();
    const [completed] = await s.downloads();
    assert.deepEqual([completed?.state, completed?.progress, completed?.download_path], ['completed', 1, '/music/in/Low/Double Negative']);
    const wanted = await s.wishlistItem(item.id);
    assert.deepEqual([wanted?.status, wanted?.download_path], ['downloaded', '/music/in/Low/Double Negative']);
    assert.deepEqual(events.dataOf('download_completed'), [{ artist: 'Low', album: 'Double Negative', mbid: MBID, download_path: '/music/in/Low/Double Negative' }]);
  });

  it('fires download_completed exactly once per download, however often the job runs afterwards', async (t) => {
    const s = await startScriptedDownloadsApp(t);
    const events = recordEvents(s.app);
    await s.script({
      Low: { status: [{ state: 'completed', progress: 1, download_path: '/in/low' }] },
      Ride: { status: [{ state: 'completed', progress: 1, download_path: '/in/ride' }] },
    });
    await s.want('Low', 'Double Negative');
    await s.want('Ride', 'Nowhere');
    for (let i = 0; i < 6; i++) await s.poll();
    assert.deepEqual(events.dataOf('download_completed').map((d) => d.download_path).sort(), ['/in/low', '/in/ride']);
    const statusCalls = (await s.calls()).filter((c) => c.op === 'status');
    assert.equal(statusCalls.length, 2, 'a completed download is not polled again');
  });

  it('puts an item back to wanted with not_before after a failure with retry_after_ms, and tries again once that time has passed', async (t) => {
    const s = await startScriptedDownloadsApp(t);
    await s.script({
      Low: { status: [{ state: 'failed', progress: 0, error: 'no search results', retry_after_ms: 60_000 }, { state: 'completed', progress: 1, download_path: '/in/low' }] },
    });
    const item = await s.want('Low', 'Double Negative');
    await s.poll();
    await s.poll();
    const failedAt = s.clock.now();
    const back = await s.wishlistItem(item.id);
    assert.equal(back?.status, 'wanted');
    assert.equal(back?.not_before, new Date(failedAt + 60_000).toISOString());
    const [failed] = await s.downloads();
    assert.deepEqual([failed?.state, failed?.error], ['failed', 'no search results']);

    await s.clock.advance(30_000);
    await s.poll();
    assert.equal((await s.calls()).filter((c) => c.op === 'request').length, 1, 'not before not_before');
    assert.equal((await s.wishlistItem(item.id))?.status, 'wanted');

    await s.clock.advance(30_000);
    await s.poll();
    assert.deepEqual((await s.calls()).filter((c) => c.op === 'request').map((c) => c.ref), [`${item.id}#1`, `${item.id}#2`]);
    const again = await s.wishlistItem(item.id);
    assert.deepEqual([again?.status, again?.not_before], ['downloading', undefined]);
    const downloads = await s.downloads();
    assert.equal(downloads.length, 1, 'the failed download is tried again, not joined by another record');
    assert.deepEqual([downloads[0]?.state, downloads[0]?.attempts, downloads[0]?.error], ['queued', 2, undefined]);

    await s.poll();
    assert.deepEqual((await s.downloads()).map((d) => [d.state, d.download_path]), [['completed', '/in/low']]);
    assert.equal((await s.wishlistItem(item.id))?.status, 'downloaded');
  });

  it('waits a year at most after a failure with an absurd retry_after_ms, instead of trying again at once', async (t) => {
    const s = await startScriptedDownloadsApp(t);
    await s.script({ Low: { status: [{ state: 'failed', progress: 0, error: 'no search results', retry_after_ms: 1e300 }] } });
    const item = await s.want('Low', 'Double Negative');
    await s.poll();
    await s.poll();
    const back = await s.wishlistItem(item.id);
    assert.deepEqual([back?.status, back?.not_before], ['wanted', new Date(s.clock.now() + 365 * 86_400_000).toISOString()]);
    await s.poll();
    assert.equal((await s.calls()).filter((c) => c.op === 'request').length, 1, 'not tried again before not_before');
  });

  it('marks the item failed after a failure without retry_after_ms, until someone retries it', async (t) => {
    const s = await startScriptedDownloadsApp(t);
    await s.script({ Low: { status: [{ state: 'failed', progress: 0, error: 'user went offline' }] } });
    const item = await s.want('Low', 'Double Negative');
    for (let i = 0; i < 4; i++) await s.poll();
    assert.equal((await s.wishlistItem(item.id))?.status, 'failed');
    assert.deepEqual((await s.downloads('?status=failed')).map((d) => d.error), ['user went offline']);
    assert.equal((await s.calls()).filter((c) => c.op === 'request').length, 1);
  });

  it('records a malformed status as the download\'s error, loses nothing, and logs a failed download_poll job', async (t) => {
    const s = await startScriptedDownloadsApp(t);
    await s.script({ Low: { status: ['done!', { state: 'almost', progress: 7 }, { state: 'completed', progress: 1 }, { state: 'completed', progress: 1, download_path: '/in/low' }] } });
    const item = await s.want('Low', 'Double Negative');
    await s.poll();

    for (const expected of [/malformed status/, /malformed status: .*state/, /completion without a download_path/]) {
      await s.poll();
      const [download] = await s.downloads();
      assert.equal(download?.state, 'queued');
      assert.match(download?.error ?? '', expected);
      assert.match(download?.error ?? '', /scripted-downloads/);
      assert.equal((await s.wishlistItem(item.id))?.status, 'downloading');
    }
    const jobs = await api<{ items: Job[] }>(s.app.baseUrl, 'GET', '/api/v1/jobs?kind=download_poll&status=failed');
    assert.equal(jobs.body.items.length, 3);
    assert.match(jobs.body.items[0]?.error ?? '', /download_path/);

    await s.poll();
    const [done] = await s.downloads();
    assert.deepEqual([done?.state, done?.error, done?.download_path], ['completed', undefined, '/in/low']);
  });

  it('keeps a download whose request() throws RetryLaterError, shows the error, and asks again at the next poll', async (t) => {
    const s = await startScriptedDownloadsApp(t);
    await s.script({ Low: { request: [{ retry_later: 'the service is busy' }, { retry_later: 'the service is busy' }, 'ok'] } });
    const item = await s.want('Low', 'Double Negative');
    await s.poll();
    const [kept] = await s.downloads();
    assert.equal(kept?.state, 'queued');
    assert.equal(kept?.client_ref, undefined);
    assert.match(kept?.error ?? '', /the service is busy/);
    assert.equal((await s.wishlistItem(item.id))?.status, 'downloading');

    await s.poll();
    assert.equal((await s.downloads()).length, 1, 'no second download for the same item');
    await s.poll();
    const [accepted] = await s.downloads();
    assert.deepEqual([accepted?.client_ref, accepted?.error], [`${item.id}#3`, undefined]);
    assert.equal((await s.calls()).filter((c) => c.op === 'request').length, 3);
  });

  it('takes a request back from the client when its wishlist item is deleted while the client is still taking it', async (t) => {
    const s = await startScriptedDownloadsApp(t);
    await s.script({ Slow: { request: [{ delay_ms: 300 }] } });
    const item = await s.want('Slow', 'Answer');
    const polling = s.poll();
    await eventually(async () => ((await s.calls()).some((c) => c.op === 'request') ? true : undefined), 5000, 'the request call');
    const deleted = await api(s.app.baseUrl, 'DELETE', `/api/v1/wishlist/${item.id}`);
    assert.equal(deleted.status, 204);
    await polling;

    const calls = await s.calls();
    assert.deepEqual(calls.filter((c) => c.op === 'cancel').map((c) => c.ref), [`${item.id}#1`], 'the ref the client handed back is cancelled');
    assert.deepEqual(await s.downloads(), [], 'no download is left for the deleted item');
  });

  it('keeps the record of a finished download when its wishlist item is deleted, in the archive, and cancels nothing', async (t) => {
    const s = await startScriptedDownloadsApp(t);
    await s.script({ Low: { status: [{ state: 'completed', progress: 1, download_path: '/music/in/Low' }] } });
    const item = await s.want('Low', 'Double Negative');
    await s.poll();
    await s.poll();
    const [finished] = await s.downloads();
    assert.equal(finished?.state, 'completed');

    assert.equal((await api(s.app.baseUrl, 'DELETE', `/api/v1/wishlist/${item.id}`)).status, 204);
    assert.deepEqual((await s.calls()).filter((c) => c.op === 'cancel'), [], 'a finished download is not cancelled');
    const archived = readDatabase(s.app.dataDir, (db) => db.prepare('SELECT id FROM downloads WHERE archived_seq IS NOT NULL').pluck().all());
    assert.deepEqual(archived, [finished?.id], 'it is archived, no longer live');
    assert.deepEqual(await s.downloads('?status=completed'), [finished], 'it is listed from the archive as it was');
  });

  it('never has more than max_active downloads under way, and starts the next when one ends', async (t) => {
    const s = await startScriptedDownloadsApp(t, 2);
    await s.script({});
    for (const artist of ['A1', 'A2', 'A3', 'A4', 'A5']) await s.want(artist, 'Album');
    await s.poll();
    await s.poll();
    assert.deepEqual((await s.downloads()).map((d) => d.artist).sort(), ['A1', 'A2']);
    assert.equal((await s.calls()).filter((c) => c.op === 'request').length, 2);
    const wanted = await api<{ total: number }>(s.app.baseUrl, 'GET', '/api/v1/wishlist?status=wanted');
    assert.equal(wanted.body.total, 3);

    await s.script({ A1: { status: [{ state: 'completed', progress: 1, download_path: '/in/a1' }] } });
    await s.poll();
    await s.poll();
    const downloads = await s.downloads();
    assert.deepEqual(downloads.map((d) => [d.artist, d.state]).sort(), [['A1', 'completed'], ['A2', 'downloading'], ['A3', 'queued']]);
    assert.equal(downloads.filter((d) => d.state !== 'completed').length, 2);
  });
});
