import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { describe, it } from 'node:test';
import { api, eventually } from '../../helpers/api-client.js';
import { startApp } from '../../helpers/start-app.js';
import { JobScheduler } from '../../../core/jobs/job-scheduler.js';

describe('DownloadService hand-off on approval', () => {
  it('hands an approved item to the blackhole at once, without waiting for the next poll', async (t) => {
    // A poll interval far beyond the test: only the hand-off can write the request file in time.
    const app = await startApp({ config: { download_client: { type: 'blackhole', poll_interval: '1h', quiet_period_ms: 0 } } });
    t.after(app.close);
    const requestsDir = join(app.dataDir, '..', 'requests');
    // The scheduler's first poll runs at start; let it pass, so the request below can only come from the hand-off.
    await app.crateflow.container.resolve(JobScheduler).runNow('download_poll');
    const added = await api<{ items: Array<{ id: string }> }>(app.baseUrl, 'POST', '/api/v1/queue', { artist: 'Broadcast', album: 'Tender Buttons' });
    assert.equal(added.status, 201);
    const id = added.body.items[0]?.id;
    assert.ok(id);
    const approved = await api(app.baseUrl, 'POST', `/api/v1/queue/${id}/approve`);
    assert.equal(approved.status, 200);

    // Only finished request files count: a watcher of requests_dir must never act on a half-written one (the
    // blackhole writes its temp file elsewhere; the filter keeps this test about the hand-off either way). The wait
    // is a liveness bound: well short of poll_interval (1h), far beyond what a loaded machine needs (issue #27).
    const files = await eventually(async () => {
      const names = (await readdir(requestsDir)).filter((name) => name.endsWith('.json'));
      return names.length > 0 ? names : undefined;
    }, 60_000, 'a request file in requests_dir');
    assert.equal(files.length, 1);
    const request: unknown = JSON.parse(await readFile(join(requestsDir, files[0] ?? ''), 'utf8'));
    const expectedDir: unknown = typeof request === 'object' && request !== null ? Reflect.get(request, 'expected_dir') : undefined;
    assert.ok(typeof expectedDir === 'string' && isAbsolute(expectedDir), `expected_dir: ${String(expectedDir)}`);
    const downloads = await api<{ items: Array<{ artist: string; state: string }> }>(app.baseUrl, 'GET', '/api/v1/downloads');
    assert.deepEqual(downloads.body.items.map((d) => [d.artist, d.state]), [['Broadcast', 'queued']]);
  });
});
