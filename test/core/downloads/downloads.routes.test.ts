import { startScriptedDownloadsApp } from './scripted-downloads-app.js';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Download } from '../../../core/downloads/download.schema.js';
import { api } from '../../helpers/api-client.js';
import { recordEvents } from '../../helpers/record-events.js';

interface Problem {
  status: number;
  detail: string;
  id?: string;
  current_state?: string;
  errors?: { path: string; message: string }[];
}

describe('GET /api/v1/downloads', () => {
  it('lists downloads newest first, filtered by state with ?status=', async (t) => {
    const s = await startScriptedDownloadsApp(t);
    await s.script({ Low: { status: [{ state: 'completed', progress: 1, download_path: '/in/low' }] }, Ride: { status: [{ state: 'downloading', progress: 0.25 }] } });
    await s.want('Low', 'Double Negative');
    await s.poll();
    await s.want('Ride', 'Nowhere');
    await s.poll();
    const all = await api<{ items: Download[]; total: number }>(s.app.baseUrl, 'GET', '/api/v1/downloads');
    assert.equal(all.body.total, 2);
    assert.deepEqual(all.body.items.map((d) => [d.artist, d.state, d.progress]), [['Ride', 'queued', 0], ['Low', 'completed', 1]]);
    await s.poll();
    assert.deepEqual((await s.downloads('?status=downloading')).map((d) => [d.artist, d.progress]), [['Ride', 0.25]]);
    assert.deepEqual((await s.downloads('?status=completed')).map((d) => d.download_path), ['/in/low']);
    const bad = await api<Problem>(s.app.baseUrl, 'GET', '/api/v1/downloads?status=lost');
    assert.equal(bad.status, 400);
    assert.ok(bad.body.errors?.some((e) => e.path === 'query.status'), JSON.stringify(bad.body));
  });
});

describe('POST /api/v1/downloads/:id/retry', () => {
  it('puts a failed download back in line: 200, queued as attempt 2, item downloading, requested again and completed', async (t) => {
    const s = await startScriptedDownloadsApp(t);
    const events = recordEvents(s.app);
    await s.script({ Low: { status: [{ state: 'failed', progress: 0.3, error: 'peer went away' }, { state: 'completed', progress: 1, download_path: '/in/low' }] } });
    const item = await s.want('Low', 'Double Negative');
    await s.poll();
    await s.poll();
    const [failed] = await s.downloads();
    assert.ok(failed);
    assert.deepEqual([failed.state, failed.error], ['failed', 'peer went away']);
    assert.equal((await s.wishlistItem(item.id))?.status, 'failed');

    const res = await api<{ download: Download }>(s.app.baseUrl, 'POST', `/api/v1/downloads/${failed.id}/retry`);
    assert.equal(res.status, 200);
    assert.deepEqual(
      [res.body.download.id, res.body.download.state, res.body.download.progress, res.body.download.attempts, res.body.download.error, res.body.download.client_ref],
      [failed.id, 'queued', 0, 2, undefined, undefined],
    );
    assert.equal((await s.wishlistItem(item.id))?.status, 'downloading');

    await s.poll();
    await s.poll();
    assert.deepEqual((await s.calls()).filter((c) => c.op === 'request').map((c) => c.ref), [`${item.id}#1`, `${item.id}#2`]);
    assert.deepEqual((await s.downloads()).map((d) => [d.state, d.download_path]), [['completed', '/in/low']]);
    assert.equal(events.dataOf('download_completed').length, 1);
  });

  it('answers 409 naming the state when the download has not failed', async (t) => {
    const s = await startScriptedDownloadsApp(t);
    await s.script({ Low: { status: [{ state: 'completed', progress: 1, download_path: '/in/low' }] } });
    await s.want('Low', 'Double Negative');
    await s.poll();
    const [queued] = await s.downloads();
    assert.ok(queued);
    const early = await api<Problem>(s.app.baseUrl, 'POST', `/api/v1/downloads/${queued.id}/retry`);
    assert.equal(early.status, 409);
    assert.equal(early.headers.get('content-type'), 'application/problem+json');
    assert.equal(early.body.current_state, 'queued', JSON.stringify(early.body));
    assert.match(early.body.detail, /queued/);
    await s.poll();
    const late = await api<Problem>(s.app.baseUrl, 'POST', `/api/v1/downloads/${queued.id}/retry`);
    assert.equal(late.status, 409);
    assert.equal(late.body.current_state, 'completed');
    assert.equal((await s.downloads())[0]?.attempts, 1);
  });

  it('answers 404 problem+json naming an unknown download', async (t) => {
    const s = await startScriptedDownloadsApp(t);
    const res = await api<Problem>(s.app.baseUrl, 'POST', '/api/v1/downloads/nosuchdownload/retry');
    assert.equal(res.status, 404);
    assert.equal(res.headers.get('content-type'), 'application/problem+json');
    assert.equal(res.body.id, 'nosuchdownload');
  });
});
