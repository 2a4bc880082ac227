import { performance } from 'node:perf_hooks';
import { Tokens } from '../core/di/tokens.js';
import type { Store } from '../core/storage/store.js';
import { createLogger } from '../core/logging/create-logger.js';
import { startApp, type StartedApp } from '../test/helpers/start-app.js';
import type { BenchOptions } from './bench-options.js';
import { startBareJsonServer } from './bare-json-server.js';
import { measureHttp, type LoadResult } from './measure-http.js';
import { measureSideBySide } from './measure-side-by-side.js';
import { percent, printTable } from './print-table.js';
import { runWhenMain } from './run-when-main.js';

const BATCH = 1000;
const CONNECTIONS = 32;
const FULL = { items: 10_000, pageSeconds: 8, approveSeconds: 8, rounds: 4, warmUpSeconds: 2 };
const QUICK = { items: 2000, pageSeconds: 2, approveSeconds: 4, rounds: 2, warmUpSeconds: 1 };

/**
 * Issue 3, point 9, with 10,000 pending items (2,000 with --quick): the time to add them, `GET /api/v1/queue/pending` (a page of 50)
 * beside a bare node:http server answering the same page from memory, and persisted approvals per second
 * (each 200 only after its approval is on disk) with the store's commit count (GroupCommit.committed) to show group
 * commit.
 */
export async function run(options: BenchOptions = { quick: false }): Promise<void> {
  const scale = options.quick ? QUICK : FULL;
  const items = scale.items;
  const app = await startApp({ log: createLogger('warn'), validateResponses: false });
  let page: unknown;
  const bare = await startBareJsonServer(() => page);
  const bareSerialized = await startBareJsonServer(() => page, { serializeOnce: true });
  try {
    const { ids, ms } = await addCandidates(app, items);
    page = await (await fetch(`${app.baseUrl}/api/v1/queue/pending`)).json();
    const [bareResult, bareSerializedResult, appResult] = await measureSideBySide({
      urls: [`${bare.url}/api/v1/queue/pending`, `${bareSerialized.url}/api/v1/queue/pending`, `${app.baseUrl}/api/v1/queue/pending`],
      connections: CONNECTIONS,
      seconds: scale.pageSeconds,
      rounds: scale.rounds,
      warmUpSeconds: scale.warmUpSeconds,
    });
    if (!bareResult || !bareSerializedResult || !appResult) throw new Error('expected one result per server');

    const commits = app.crateflow.container.resolve<Store>(Tokens.Store).commits;
    const commitsBefore = commits.committed;
    const approvals = await measureHttp({
      url: app.baseUrl,
      method: 'POST',
      connections: CONNECTIONS,
      seconds: scale.approveSeconds,
      requests: ids.map((id) => ({ path: `/api/v1/queue/${id}/approve` })),
    });
    const written = commits.committed - commitsBefore;
    // Counted from the answers: each 200 is sent only once its approval is on disk, wherever the store keeps it.
    const approved = approvals.completed;

    const row = (name: string, r: LoadResult) => [name, r.requestsPerSecond, r.p50Ms, r.p99Ms, r.cpuMicrosPerRequest, r.failures, `${r.seconds} s`];
    const header = ['measurement', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'failures', 'time'];
    printTable(
      `Queue with ${items.toLocaleString('en-US')} pending items, ${CONNECTIONS} connections`,
      header,
      [
        [`add ${items.toLocaleString('en-US')} candidates (POST /api/v1/queue, ${BATCH} per request)`, Math.round((items * 1000) / ms), '', '', '', '', `${Math.round(ms)} ms`],
        row('GET /queue/pending, bare node:http', bareResult),
        row('GET /queue/pending, bare node:http, serialised once', bareSerializedResult),
        row('GET /queue/pending, crateflow', appResult),
        row('POST /queue/{id}/approve (persisted)', approvals),
      ],
      [
        `pending page, crateflow / bare: ${percent(appResult.requestsPerSecond, bareResult.requestsPerSecond)} (target ≥ 50%) ${appResult.requestsPerSecond >= bareResult.requestsPerSecond / 2 ? 'PASS' : 'MISS'}; ` +
          `beside the bare server that serialises once, as crateflow does between two changes of the queue: ${percent(appResult.requestsPerSecond, bareSerializedResult.requestsPerSecond)}`,
        `approvals: ${approvals.requestsPerSecond.toLocaleString('en-US')}/s (target ≥ 2,000) ${approvals.requestsPerSecond >= 2000 ? 'PASS' : 'MISS'}, p99 ${approvals.p99Ms} ms (target < 25) ${approvals.p99Ms < 25 ? 'PASS' : 'MISS'}`,
        `group commit: ${approved.toLocaleString('en-US')} approvals on disk in ${written.toLocaleString('en-US')} commits, one WAL fsync each (${(approved / Math.max(written, 1)).toFixed(1)} per commit)`,
        `"add" row: req/s column is candidates/s`,
      ],
    );
  } finally {
    await bare.close();
    await bareSerialized.close();
    await app.close();
  }
}

/** Adds `items` distinct candidates in batches of BATCH and returns their ids and the total time. */
async function addCandidates(app: StartedApp, items: number): Promise<{ ids: string[]; ms: number }> {
  const ids: string[] = [];
  const started = performance.now();
  for (let offset = 0; offset < items; offset += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, items - offset) }, (_, i) => ({
      artist: `Bench Artist ${offset + i}`,
      album: `Bench Album ${offset + i}`,
      source: 'bench',
      score: (offset + i) % 100,
    }));
    const response = await fetch(`${app.baseUrl}/api/v1/queue`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(batch),
    });
    if (response.status !== 201) throw new Error(`POST /api/v1/queue answered ${response.status}: ${await response.text()}`);
    const added: unknown = await response.json();
    ids.push(...idsOf(added));
  }
  const ms = performance.now() - started;
  if (ids.length !== items) throw new Error(`expected ${items} new queue items, got ${ids.length}`);
  return { ids, ms };
}

function idsOf(body: unknown): string[] {
  if (!body || typeof body !== 'object' || !('items' in body) || !Array.isArray(body.items)) throw new Error('POST /api/v1/queue answered without items');
  return body.items.flatMap((item: unknown) => (item && typeof item === 'object' && 'id' in item && typeof item.id === 'string' ? [item.id] : []));
}

runWhenMain(import.meta.url, run);
