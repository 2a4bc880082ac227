import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type StartedApp } from '../../helpers/start-app.js';
import { JobLog } from '../../../core/jobs/job-log.js';
import { KEEP_JOBS_PER_KIND } from '../../../core/jobs/jobs-table.js';
import type { Job } from '../../../core/jobs/job.schema.js';
import { api } from '../../helpers/api-client.js';
import { readDatabase } from '../../helpers/read-stored.js';

describe('JobLog', () => {
  let app: StartedApp;
  let jobs: JobLog;
  before(async () => {
    app = await startApp({ config: { library: { sync_interval: '1d' } } });
    jobs = app.crateflow.container.resolve(JobLog);
  });
  after(() => app.close());
  /** Committed jobs of `kind` not archived: those listed ahead of every archived one. */
  const notArchived = (kind: string): string[] =>
    readDatabase(app.dataDir, (db) => db.prepare('SELECT id FROM jobs WHERE kind = ? AND archived_seq IS NULL').pluck().all(kind) as string[]);

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

  it('archives the jobs of a kind beyond its newest 100, still listed and found; a flood of one kind never archives the jobs of another', async () => {
    const sync = await jobs.start('library_sync', 'manual');
    await jobs.finish(sync.id, { albums: 1 });
    const before = (await jobs.list({ kind: 'download_poll', limit: 500, offset: 0 })).total;
    for (let i = 0; i < 120; i++) await jobs.recordFailure('download_poll', `failure ${i}`);
    assert.equal(notArchived('download_poll').length, KEEP_JOBS_PER_KIND);
    assert.equal(jobs.get(sync.id).status, 'completed');
    // Newest first across the move: the last not archived, then the most recently archived.
    const page = await api<{ items: Job[]; total: number }>(app.baseUrl, 'GET', `/api/v1/jobs?kind=download_poll&status=failed&limit=3&offset=${KEEP_JOBS_PER_KIND - 1}`);
    assert.equal(page.body.total, before + 120);
    assert.deepEqual(page.body.items.map((j) => j.error), ['failure 20', 'failure 19', 'failure 18']);
    const archived = page.body.items[2];
    assert.ok(archived && !notArchived('download_poll').includes(archived.id));
    const found = await api<Job>(app.baseUrl, 'GET', `/api/v1/jobs/${archived.id}`);
    assert.deepEqual([found.status, found.body], [200, archived]);
    assert.equal((await api(app.baseUrl, 'GET', '/api/v1/jobs?kind=download_poll&status=completed')).body.total, 0);
  });

  it('prunes source runs per source, so an hourly source keeps the last run of a daily one', async () => {
    const daily = await jobs.start('source_run', 'schedule', { source: 'daily' });
    await jobs.finish(daily.id, { added: 3 });
    for (let i = 0; i < 120; i++) {
      const hourly = await jobs.start('source_run', 'schedule', { source: 'hourly' });
      await jobs.finish(hourly.id, { added: 0 });
    }
    assert.equal(jobs.get(daily.id).summary.added, 3);
    assert.equal(notArchived('source_run').length, 101);
    assert.equal((await jobs.list({ kind: 'source_run', limit: 500, offset: 0 })).total, 121);
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
