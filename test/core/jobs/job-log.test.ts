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

  it('prunes source runs per source, so an hourly source keeps the last run of a daily one', async () => {
    const daily = await jobs.start('source_run', 'schedule', { source: 'daily' });
    await jobs.finish(daily.id, { added: 3 });
    for (let i = 0; i < 120; i++) {
      const hourly = await jobs.start('source_run', 'schedule', { source: 'hourly' });
      await jobs.finish(hourly.id, { added: 0 });
    }
    assert.equal(jobs.get(daily.id).summary.added, 3);
    assert.equal(jobs.list({ kind: 'source_run', limit: 500, offset: 0 }).total, 101);
  });

  it('shows the live progress of a running job and drops it when the job ends', async () => {
    const job = await jobs.start('source_run', 'manual', { source: 'live' });
    jobs.report(job.id, { progress: { done: 2, total: 8 }, eta: '2026-01-01T00:01:00.000Z', summary: { added: 4 } });
    const running = await api<Record<string, unknown>>(app.baseUrl, 'GET', `/api/v1/jobs/${job.id}`);
    assert.deepEqual([running.body.progress, running.body.eta, running.body.summary], [{ done: 2, total: 8 }, '2026-01-01T00:01:00.000Z', { added: 4 }]);
    await jobs.finish(job.id, { added: 5 });
    jobs.report(job.id, { progress: { done: 9 } });
    const ended = await api<Record<string, unknown>>(app.baseUrl, 'GET', `/api/v1/jobs/${job.id}`);
    assert.deepEqual([ended.body.progress, ended.body.eta, ended.body.summary], [undefined, undefined, { added: 5 }]);
  });
});
