import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { api } from '../helpers/api-client.js';
import { writeAlbum } from '../helpers/write-album.js';
import { between, runSeed, seededRandom } from './seeded-random.js';
import { SERVICE_CHILD, freePort, killAllServiceProcesses, startServiceProcess, type ServiceProcess } from './service-process.js';
import { writeServiceConfig } from './write-service-config.js';

// Issue 17: records moving out of the core document to archive.jsonl keep the store's kill -9 guarantees. A real
// service process runs library syncs back to back; each sync is a job, and from the 100th on each new one moves
// the oldest to the archive in the same commit. The process is killed with kill -9 at a random moment, and after
// every restart each job whose start was answered must be listed exactly once (in the document or the archive)
// and found by id. Lean: one data dir, ~10 s of syncs in all.

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
  it(`keeps every acknowledged job, in the document or the archive, across ${RUNS} kill -9 while jobs move out`, async (t) => {
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
      if (run === RUNS) {
        assert.ok((await stat(join(dir, 'data', 'archive.jsonl'))).size > 0, 'jobs moved to the archive');
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
