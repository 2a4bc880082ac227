import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type StartedApp } from '../../helpers/start-app.js';
import { JobLog } from '../../../core/jobs/job-log.js';
import { api } from '../../helpers/api-client.js';

describe('JobLog', () => {
  let app: StartedApp;
  let jobs: JobLog;
  before(async () => {
    app = await startApp({ config: { library: { sync_interval: '1d' } } });
    jobs = app.crateflow.container.resolve(JobLog);
  });
  after(() => app.close());

  it('folds the same failure repeated back to back into one entry with a count', async () => {
    await jobs.recordFailure('download_poll', 'slskd unreachable');
    await jobs.recordFailure('download_poll', 'slskd unreachable');
    await jobs.recordFailure('download_poll', 'slskd unreachable');
    await jobs.recordFailure('download_poll', 'slskd rejected the API key (401)');
    const { body } = await api<{ items: { error: string; summary: Record<string, number> }[] }>(app.baseUrl, 'GET', '/api/v1/jobs?kind=download_poll');
    assert.deepEqual(
      body.items.map((j) => [j.error, j.summary.occurrences]),
      [['slskd rejected the API key (401)', 1], ['slskd unreachable', 3]],
    );
  });

  it('prunes per kind, so a flood of one kind keeps the history of another', async () => {
    const sync = await jobs.start('library_sync', 'manual');
    await jobs.finish(sync.id, { albums: 1 });
    for (let i = 0; i < 120; i++) await jobs.recordFailure('download_poll', `failure ${i}`);
    assert.equal(jobs.list({ kind: 'download_poll', limit: 500, offset: 0 }).total, 100);
    assert.equal(jobs.get(sync.id).status, 'completed');
  });
});
