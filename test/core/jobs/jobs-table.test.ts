// The record of background work in the database: every job kept, listed as the job log always listed them.
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Job } from '../../../core/jobs/job.schema.js';
import { JobsTable, KEEP_JOBS_PER_KIND } from '../../../core/jobs/jobs-table.js';
import { Store } from '../../../core/storage/store.js';

async function dataDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-jobs-table-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Opens the store of `dir` and its jobs table; the store is closed after the test unless closed before. */
async function open(t: TestContext, dir: string): Promise<{ store: Store; jobs: JobsTable; close(): Promise<void> }> {
  const store = await Store.open(dir, { exclusive: true });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await store.close();
  };
  t.after(close);
  return { store, jobs: new JobsTable(store), close };
}

const job = (n: number, kind: string, extra: Partial<Job> = {}): Job => ({
  id: `j${String(n).padStart(6, '0')}`, kind, status: 'running', trigger: 'schedule', started_at: '2026-03-01T10:00:00.000Z', summary: {}, ...extra,
});
const finished = (n: number, kind: string, extra: Partial<Job> = {}): Job => job(n, kind, { status: 'completed', finished_at: '2026-03-01T10:01:00.000Z', summary: { added: n }, ...extra });
const ids = (items: readonly Job[]) => items.map((j) => j.id);
const idsFrom = (from: number, to: number) => Array.from({ length: Math.abs(to - from) + 1 }, (_, i) => `j${String(from < to ? from + i : from - i).padStart(6, '0')}`);

describe('JobsTable', () => {
  it('lists jobs newest first with kind and status filters, and answers get, latest and running', async (t) => {
    const { store, jobs } = await open(t, await dataDir(t));
    await store.change(() => {
      jobs.insert(job(1, 'library_sync'));
      jobs.insert(job(2, 'source_run', { source: 'new-releases' }));
      jobs.insert(job(3, 'source_run', { source: 'similar-artists' }));
      jobs.insert(job(4, 'download_poll'));
    });
    await store.change(() => {
      jobs.update(finished(1, 'library_sync'));
      jobs.update(job(4, 'download_poll', { status: 'failed', finished_at: '2026-03-01T10:02:00.000Z', error: 'refused', summary: { occurrences: 1 } }));
      jobs.update(finished(2, 'source_run', { source: 'new-releases' }));
    });
    assert.deepEqual(jobs.page({ offset: 0, limit: 10 }), {
      items: [
        job(4, 'download_poll', { status: 'failed', finished_at: '2026-03-01T10:02:00.000Z', error: 'refused', summary: { occurrences: 1 } }),
        job(3, 'source_run', { source: 'similar-artists' }),
        finished(2, 'source_run', { source: 'new-releases' }),
        finished(1, 'library_sync'),
      ],
      total: 4,
    });
    assert.deepEqual(ids(jobs.page({ offset: 1, limit: 2 }).items), ['j000003', 'j000002']);
    assert.deepEqual(jobs.page({ offset: 4, limit: 2 }), { items: [], total: 4 });
    assert.deepEqual(ids(jobs.page({ kind: 'source_run', offset: 0, limit: 10 }).items), ['j000003', 'j000002']);
    assert.deepEqual(ids(jobs.page({ status: 'completed', offset: 0, limit: 10 }).items), ['j000002', 'j000001']);
    assert.deepEqual(jobs.page({ kind: 'source_run', status: 'running', offset: 0, limit: 10 }), { items: [job(3, 'source_run', { source: 'similar-artists' })], total: 1 });
    assert.deepEqual(jobs.page({ kind: 'nothing', offset: 0, limit: 10 }), { items: [], total: 0 });
    assert.deepEqual(jobs.get('j000001'), finished(1, 'library_sync'));
    assert.equal(jobs.get('nope'), undefined);
    assert.equal(jobs.latest('source_run')?.id, 'j000003');
    assert.equal(jobs.latest('source_run', 'new-releases')?.id, 'j000002');
    assert.equal(jobs.latest('source_run', 'other'), undefined);
    assert.equal(jobs.latest('nothing'), undefined);
    assert.deepEqual(ids(jobs.running()), ['j000003']);
  });

  it(`keeps the newest ${KEEP_JOBS_PER_KIND} finished jobs of each kind and source at the head of the list and the older ones after every other, as the archive did`, async (t) => {
    const { store, jobs } = await open(t, await dataDir(t));
    await store.change(() => {
      jobs.insert(finished(1, 'library_sync')); // a year old, and the only one: stays at the head
      jobs.insert(job(2, 'download_poll')); // running: never archived, never counted
      for (let n = 3; n <= 107; n++) jobs.insert(finished(n, 'download_poll', { status: 'failed' }));
      for (let n = 108; n <= 110; n++) jobs.insert(finished(n, 'source_run', { source: 'a' }));
    });
    // 105 failed polls: the 5 oldest are archived, each when a newer one was added, oldest first.
    const all = jobs.page({ offset: 0, limit: 200 });
    assert.deepEqual(ids(all.items), [...idsFrom(110, 8), 'j000002', 'j000001', ...idsFrom(7, 3)]);
    assert.equal(all.total, 110);
    assert.deepEqual(ids(jobs.page({ offset: 104, limit: 3 }).items), ['j000001', 'j000007', 'j000006'], 'a page across the boundary');
    assert.deepEqual(ids(jobs.page({ kind: 'download_poll', status: 'failed', offset: 98, limit: 4 }).items), ['j000009', 'j000008', 'j000007', 'j000006']);
    assert.deepEqual(jobs.page({ kind: 'download_poll', status: 'failed', offset: 104, limit: 4 }), { items: [finished(3, 'download_poll', { status: 'failed' })], total: 105 });
    assert.equal(jobs.page({ kind: 'download_poll', offset: 0, limit: 1 }).total, 106);
    assert.deepEqual(jobs.get('j000003'), finished(3, 'download_poll', { status: 'failed' }), 'an archived job is found by id');
    assert.equal(jobs.latest('download_poll')?.id, 'j000107');
    assert.deepEqual(ids(jobs.running()), ['j000002']);
    await assert.rejects(store.change(() => jobs.update(finished(3, 'download_poll'))), /archived or unknown/);

    // Sources are apart: a second source's runs push none of the first's down.
    await store.change(() => {
      for (let n = 111; n <= 212; n++) jobs.insert(finished(n, 'source_run', { source: 'b' }));
      jobs.insert(finished(213, 'source_run')); // no source: a group of its own
    });
    assert.deepEqual(ids(jobs.page({ kind: 'source_run', offset: 0, limit: 200 }).items).slice(-6), ['j000113', 'j000110', 'j000109', 'j000108', 'j000112', 'j000111']);
  });

  it('keeps the totals right after every kind of write', async (t) => {
    const { store, jobs } = await open(t, await dataDir(t));
    const totals = () => [
      jobs.page({ offset: 0, limit: 0 }).total,
      jobs.page({ kind: 'download_poll', offset: 0, limit: 0 }).total,
      jobs.page({ status: 'running', offset: 0, limit: 0 }).total,
      jobs.page({ kind: 'download_poll', status: 'failed', offset: 0, limit: 0 }).total,
    ];
    assert.deepEqual(totals(), [0, 0, 0, 0]);
    await store.change(() => [1, 2].forEach((n) => jobs.insert(job(n, 'download_poll'))));
    await store.change(() => jobs.insert(job(3, 'library_sync')));
    assert.deepEqual(totals(), [3, 2, 3, 0]);
    await store.change(() => jobs.update(finished(1, 'download_poll', { status: 'failed' })));
    assert.deepEqual(totals(), [3, 2, 2, 1]);
    // Archiving moves a job down the list, not out of the totals.
    await store.change(() => {
      for (let n = 4; n <= 104; n++) jobs.insert(finished(n, 'download_poll', { status: 'failed' }));
    });
    assert.deepEqual(totals(), [104, 103, 2, 102]);
    assert.deepEqual(ids(jobs.page({ kind: 'download_poll', status: 'failed', offset: 100, limit: 5 }).items), ['j000004', 'j000001']);
  });

  it('never stores what a running job reports as it goes', async (t) => {
    const { store, jobs } = await open(t, await dataDir(t));
    await store.change(() => jobs.insert(job(1, 'source_run', { source: 'a', progress: { done: 1, total: 4 }, eta: '2026-03-01T10:05:00.000Z' })));
    await store.change(() => jobs.update(job(1, 'source_run', { source: 'a', summary: { added: 2 }, progress: { done: 2 } })));
    assert.deepEqual(jobs.get('j000001'), job(1, 'source_run', { source: 'a', summary: { added: 2 } }));
  });

  it('leaves nothing of a change that throws part-way', async (t) => {
    const { store, jobs } = await open(t, await dataDir(t));
    await store.change(() => {
      for (let n = 1; n <= 100; n++) jobs.insert(finished(n, 'download_poll'));
    });
    await assert.rejects(
      store.change(() => {
        jobs.insert(job(101, 'download_poll')); // archives j000001
        jobs.update(finished(100, 'download_poll', { status: 'failed' }));
        throw new Error('the change fails after its writes');
      }),
      /the change fails/,
    );
    const page = jobs.page({ offset: 0, limit: 200 });
    assert.deepEqual([page.total, page.items[0]?.id, page.items.at(-1)?.id, page.items.length], [100, 'j000100', 'j000001', 100]);
    assert.equal(jobs.get('j000100')?.status, 'completed');
    assert.equal(jobs.get('j000101'), undefined);
    // Nothing was archived: the next insert archives j000001 first, as if the failed change never happened.
    await store.change(() => jobs.insert(job(101, 'download_poll')));
    assert.deepEqual(ids(jobs.page({ offset: 99, limit: 5 }).items), ['j000002', 'j000001']);
  });

  it('keeps every job, its place and the archive numbering across a restart', async (t) => {
    const dir = await dataDir(t);
    const first = await open(t, dir);
    await first.store.change(() => {
      for (let n = 1; n <= 101; n++) first.jobs.insert(finished(n, 'download_poll'));
      first.jobs.insert(job(102, 'library_sync'));
    });
    await first.close();

    const { store, jobs } = await open(t, dir);
    assert.deepEqual(ids(jobs.running()), ['j000102'], 'left running: for JobLog to mark interrupted');
    await store.change(() => jobs.insert(finished(103, 'download_poll')));
    const page = jobs.page({ offset: 99, limit: 10 });
    assert.deepEqual([ids(page.items), page.total], [['j000004', 'j000003', 'j000002', 'j000001'], 103]);
  });

  it('pages 100,000 jobs by index, nearly all archived: first and deep pages (times printed, not bounded)', async (t) => {
    const { store, jobs } = await open(t, await dataDir(t));
    const kinds = ['download_poll', 'library_sync', 'source_run', 'metadata'];
    let started = performance.now();
    await store.change(() => {
      for (let n = 0; n < 100_000; n++) jobs.insert(finished(n, kinds[n % 4] as string, n % 3 === 0 ? { status: 'failed' } : {}));
    });
    const fillMs = performance.now() - started;
    const timed = (read: () => { items: Job[]; total: number }) => {
      const at = performance.now();
      const page = read();
      return { ids: ids(page.items), total: page.total, ms: performance.now() - at };
    };
    const firstPage = timed(() => jobs.page({ offset: 0, limit: 50 }));
    const deep = timed(() => jobs.page({ offset: 99_950, limit: 50 }));
    const deepKind = timed(() => jobs.page({ kind: 'metadata', offset: 24_950, limit: 50 }));
    const deepFailed = timed(() => jobs.page({ kind: 'library_sync', status: 'failed', offset: 8_300, limit: 50 }));
    assert.deepEqual([firstPage.ids.length, firstPage.ids[0], firstPage.total], [50, 'j099999', 100_000]);
    assert.deepEqual([deep.ids.length, deep.ids.at(-1)], [50, 'j000000'], 'the first job archived is last');
    assert.deepEqual([deepKind.ids.length, deepKind.ids.at(-1), deepKind.total], [50, 'j000003', 25_000]);
    assert.equal(deepFailed.ids.at(-1), 'j000009');
    started = performance.now();
    const latest = jobs.latest('library_sync');
    const latestMs = performance.now() - started;
    assert.equal(latest?.id, 'j099997');
    t.diagnostic(
      `100,000 jobs (99,600 archived): inserted in ${fillMs.toFixed(0)} ms; first page ${firstPage.ms.toFixed(2)} ms, offset 99,950 ${deep.ms.toFixed(2)} ms, ` +
        `one kind at 24,950 ${deepKind.ms.toFixed(2)} ms, kind and status at 8,300 ${deepFailed.ms.toFixed(2)} ms, latest ${latestMs.toFixed(2)} ms`,
    );
  });
});
