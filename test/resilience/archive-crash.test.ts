import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { KEEP_JOBS_PER_KIND } from '../../core/jobs/jobs-table.js';
import { api } from '../helpers/api-client.js';
import { readDatabase } from '../helpers/read-stored.js';
import { writeAlbum } from '../helpers/write-album.js';
import { between, runSeed, seededRandom } from './seeded-random.js';
import { SERVICE_CHILD, freePort, killAllServiceProcesses, startServiceProcess, type ServiceProcess } from './service-process.js';
import { writeServiceConfig } from './write-service-config.js';

// Issue 17: archiving keeps the store's kill -9 guarantees. A real service process runs library syncs back to
// back; each sync is a job, and from the 100th on the commit that adds a new one archives the oldest (sets its
// archived_seq, the next number after every job archived before). The process is killed with kill -9 at a random
// moment, and after every restart each job whose start was answered must be listed exactly once (live or
// archived) and found by id; in the database, the archived jobs are numbered 1..n without a gap, are all older
// than the live ones, and at most KEEP_JOBS_PER_KIND are live. Lean: one data dir, ~10 s of syncs in all.

const RUNS = 8;
const WARM_UP_JOBS = 110; // past the 100 kept per kind, so every later sync archives one
const KILL_AFTER_MS: [number, number] = [100, 1200];

interface Job {
  id: string;
  status: string;
}

after(() => killAllServiceProcesses());

/** Every library_sync job the service lists, paging through the live ones and the archive. */
async function listedJobs(service: ServiceProcess): Promise<{ ids: string[]; total: number }> {
  const ids: string[] = [];
  let total = 0;
  for (let offset = 0; ; offset += 500) {
    const page = await api<{ items: Job[]; total: number }>(service.baseUrl, 'GET', `/api/v1/jobs?kind=library_sync&limit=500&offset=${offset}`);
    assert.equal(page.status, 200);
    ids.push(...page.body.items.map((j) => j.id));
    total = page.body.total;
    if (page.body.items.length < 500) return { ids, total };
  }
}

/**
 * The library syncs as stored, read beside the running service (a second, read-only connection sees the last
 * commit): the archive's numbers, how many are live, and the newest archived and oldest live by seq.
 */
function storedJobs(dataDir: string): { archivedNumbers: number[]; live: number; newestArchived: number; oldestLive: number } {
  return readDatabase(dataDir, (db) => ({
    archivedNumbers: db.prepare('SELECT archived_seq FROM jobs WHERE archived_seq IS NOT NULL ORDER BY archived_seq').pluck().all() as number[],
    live: db.prepare("SELECT count(*) FROM jobs WHERE kind = 'library_sync' AND archived_seq IS NULL").pluck().get() as number,
    newestArchived: (db.prepare("SELECT max(seq) FROM jobs WHERE kind = 'library_sync' AND archived_seq IS NOT NULL").pluck().get() as number | null) ?? 0,
    oldestLive: (db.prepare("SELECT min(seq) FROM jobs WHERE kind = 'library_sync' AND archived_seq IS NULL").pluck().get() as number | null) ?? Number.POSITIVE_INFINITY,
  }));
}

/** Starts syncs one after another until `stop()` says so; each answered 202 goes into `acknowledged`. */
async function syncBackToBack(service: ServiceProcess, acknowledged: Set<string>, stop: () => boolean): Promise<void> {
  while (!stop()) {
    const started = await api<{ job: Job }>(service.baseUrl, 'POST', '/api/v1/library/sync').catch(() => undefined);
    if (!started) return; // killed
    if (started.status === 202) acknowledged.add(started.body.job.id);
    for (;;) {
      const job = await api<Job>(service.baseUrl, 'GET', `/api/v1/jobs/${started.body.job.id}`).catch(() => undefined);
      if (!job || job.body.status !== 'running') break;
      await sleep(5);
    }
  }
}

describe('the archive across kill -9', () => {
  it(`keeps every acknowledged job, live or archived, across ${RUNS} kill -9 while old ones are archived`, async (t) => {
    const seed = runSeed();
    const random = seededRandom(seed);
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-archive-crash-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    await writeAlbum(join(dir, 'music', 'Low', 'Double Negative'));
    const port = await freePort();
    const config = await writeServiceConfig(dir, port, { library: { sync_interval: '1d' } });
    const acknowledged = new Set<string>();

    for (let run = 0; run <= RUNS; run++) {
      const service = await startServiceProcess({ script: SERVICE_CHILD, args: ['--config', config], port });
      const { ids, total } = await listedJobs(service);
      const context = `seed ${seed}, run ${run}`;
      assert.equal(new Set(ids).size, ids.length, `${context}: a job is listed twice`);
      assert.equal(total, ids.length, `${context}: total and the listed jobs differ`);
      const missing = [...acknowledged].filter((id) => !ids.includes(id));
      assert.deepEqual(missing, [], `${context}: acknowledged jobs were lost`);
      for (const id of [...acknowledged].slice(0, 3)) assert.equal((await api(service.baseUrl, 'GET', `/api/v1/jobs/${id}`)).status, 200, `${context}: job ${id} not found by id`);
      const stored = storedJobs(join(dir, 'data'));
      assert.deepEqual(stored.archivedNumbers, stored.archivedNumbers.map((_, i) => i + 1), `${context}: the archive is numbered with a gap`);
      assert.ok(stored.live <= KEEP_JOBS_PER_KIND, `${context}: ${stored.live} library syncs live, at most ${KEEP_JOBS_PER_KIND} may be`);
      assert.ok(stored.newestArchived < stored.oldestLive, `${context}: a job was archived before an older one`);
      if (run === RUNS) {
        assert.ok(stored.archivedNumbers.length > 0, 'jobs were archived');
        assert.ok(ids.length > WARM_UP_JOBS, `${context}: only ${ids.length} jobs ran`);
        await service.stop();
        break;
      }
      if (run === 0) {
        await syncBackToBack(service, acknowledged, () => acknowledged.size >= WARM_UP_JOBS);
      }
      let killed = false;
      const syncing = syncBackToBack(service, acknowledged, () => killed);
      await sleep(between(random, ...KILL_AFTER_MS));
      await service.kill9();
      killed = true;
      await syncing;
    }
  });
});
