import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { bundleCrateflow, DEFAULT_BUNDLE } from '../core/build/bundle-crateflow.js';
import { startScriptNodeFlags } from '../core/build/start-script-node-flags.js';
import { startBareJsonServer } from './bare-json-server.js';
import type { BenchOptions } from './bench-options.js';
import { settledDirectoryBytes } from './directory-bytes.js';
import { fillDataDir } from './fill-data-dir.js';
import { benchCandidate, QUEUE_MIXES, type PendingItem, type QueueMix } from './fill-queue.js';
import { measureHttp, type LoadResult } from './measure-http.js';
import { measureSideBySide } from './measure-side-by-side.js';
import { postJson } from './post-json.js';
import { median } from './print-table.js';
import { residentMb } from './process-memory.js';
import { runWhenMain } from './run-when-main.js';
import { printScaleTable, type HistoryFigures, type SizeFigures } from './scale-table.js';
import { spawnServer, type SpawnedServer } from './spawned-server.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DEFAULT_SIZES = [1000, 10_000, 100_000, 1_000_000];
const QUICK_SIZES = [1000];
/** storage.max_items at its highest: a million pending items are what it lets the service hold. */
const MAX_ITEMS = 1_000_000;
const CONNECTIONS = 32;
const IDLE_MS = 2000;
const PAGE = 50;
const ADDED_FROM_INDEX = 1_000_000_000;
/** Approvals listed per run at most: more than the target rate keeps up for the whole bound. */
const APPROVALS_PER_SECOND_LISTED = 5000;
/** These only bound a hang; the figures say how long a start and a stop took. */
const READY_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 60_000;
const FULL = { starts: 5, pageSeconds: 8, pageRounds: 4, warmUpSeconds: 2, approveSeconds: 20, adds: 200 };
const QUICK = { starts: 2, pageSeconds: 2, pageRounds: 1, warmUpSeconds: 1, approveSeconds: 5, adds: 50 };
type Scale = typeof FULL;

/**
 * Issue #29: how the service holds up as its store grows to a million items, for each mix of them (fill-queue.ts:
 * all pending; a year of use, 90% decided with the approved albums downloaded; the same year with the approved
 * 45% all waiting on the wishlist). The real service runs as `node dist/crateflow.mjs` with the node flags of
 * `npm start` on its own data dir, filled once per mix and size through its own tables while it is stopped (a
 * million items in seconds; the API would take many minutes), so start-up, memory and stop are those of a service
 * opening that store. Load comes from wrk, beside a bare node:http server serving the same JSON in the same run.
 */
export async function run(options: BenchOptions = { quick: false }): Promise<void> {
  const scale = options.quick ? QUICK : FULL;
  const sizes = options.sizes ?? (options.quick ? QUICK_SIZES : DEFAULT_SIZES);
  const mixes = mixesOf(options.mixes);
  const bundle = await bundleCrateflow();
  for (const mix of mixes) {
    const figures: SizeFigures[] = [];
    for (const size of sizes) figures.push(await measureSize(mix, size, scale));
    printScaleTable(mix, figures, { connections: CONNECTIONS, idleMs: IDLE_MS, starts: scale.starts, adds: scale.adds, page: PAGE, bundleMs: bundle.ms });
  }
}

function mixesOf(names: readonly string[] | undefined): QueueMix[] {
  if (!names) return [...QUEUE_MIXES];
  return names.map((name) => {
    const mix = QUEUE_MIXES.find((known) => known === name);
    if (!mix) throw new Error(`--mixes: "${name}" is none of ${QUEUE_MIXES.join(', ')}`);
    return mix;
  });
}

async function measureSize(mix: QueueMix, size: number, scale: Scale): Promise<SizeFigures> {
  const dir = await mkdtemp(join(tmpdir(), `crateflow-bench-scale-${mix}-${size}-`));
  try {
    const config = join(dir, 'config.yaml');
    const dataDir = join(dir, 'data');
    // An empty music folder: /health reports a missing one; the library sync is a day away and never runs here.
    await mkdir(join(dir, 'music'), { recursive: true });
    await writeFile(config, configYaml(dir, dataDir));
    const nodeFlags = await startScriptNodeFlags();
    const start = () => spawnServer({ cwd: ROOT, args: [...nodeFlags, DEFAULT_BUNDLE, '--config', config], readyTimeoutMs: READY_TIMEOUT_MS, stopTimeoutMs: STOP_TIMEOUT_MS });

    const filled = await fillDataDir(dataDir, size, mix);
    const dataMib = (await settledDirectoryBytes(dataDir)) / 1024 / 1024;

    const starts: { ms: number; mib: number; stopMs: number }[] = [];
    for (let i = 0; i < scale.starts; i++) {
      const server = await start();
      let mib = Number.NaN;
      try {
        await sleep(IDLE_MS);
        mib = await residentMb(server.pid);
      } finally {
        starts.push({ ms: server.msToHealth, mib, stopMs: await stopCleanly(server) });
      }
    }

    const server = await start();
    let measured: Omit<SizeFigures, 'stopAfterLoadMs'>;
    try {
      const load = loadavg()[0] ?? 0;
      const room = MAX_ITEMS - filled.pending.length - filled.wishlistItems;
      const bytesPerAdd = room >= scale.adds ? await measureBytesPerAdd(server, dataDir, scale.adds) : undefined;
      const [page, barePage] = await measurePage(server, `/api/v1/queue/pending?limit=${PAGE}`, scale);
      const [wishlistPage, bareWishlistPage] = await measurePage(server, `/api/v1/wishlist?limit=${PAGE}`, scale);
      const history = filled.rejected > 0 ? await measureHistory(server, scale) : undefined;
      const { byId, byMbid, asked } = await measureApprovals(server, filled.pending, scale);
      measured = {
        mix, size, filled, dataMib, load, bytesPerAdd, page, barePage, wishlistPage, bareWishlistPage, history, byId, byMbid, approvalsAsked: asked,
        startMs: median(starts.map((s) => s.ms)),
        rssMib: median(starts.map((s) => s.mib)),
        stopMs: median(starts.map((s) => s.stopMs)),
      };
    } catch (err: unknown) {
      await server.stop();
      throw err;
    }
    return { ...measured, stopAfterLoadMs: await stopCleanly(server) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `adds` single-candidate POSTs one after another: the bytes the data dir grew by, per add. */
async function measureBytesPerAdd(server: SpawnedServer, dataDir: string, adds: number): Promise<number> {
  const before = await settledDirectoryBytes(dataDir);
  for (let i = 0; i < adds; i++) {
    // Indices past every stored size: a duplicate mbid would be skipped (still 201) and add nothing.
    const answer = await postJson(`${server.baseUrl}/api/v1/queue`, benchCandidate(ADDED_FROM_INDEX + i, 'Added'), 201);
    const added = answer && typeof answer === 'object' && 'items' in answer && Array.isArray(answer.items) ? answer.items.length : 0;
    if (added !== 1) throw new Error(`POST /api/v1/queue added ${added} items instead of 1: ${JSON.stringify(answer)}`);
  }
  // Each add is on disk before its 201, so nothing is left to wait for; the settle only skips background work.
  const after = await settledDirectoryBytes(dataDir);
  return (after - before) / adds;
}

/** A page at `path` on the service, beside a bare node:http server answering the same JSON: [service, bare]. */
async function measurePage(server: SpawnedServer, path: string, scale: Scale): Promise<[LoadResult, LoadResult]> {
  const body: unknown = await getJson(`${server.baseUrl}${path}`);
  const bare = await startBareJsonServer(() => body);
  try {
    const [page, barePage] = await measureSideBySide({
      urls: [`${server.baseUrl}${path}`, `${bare.url}${path}`],
      connections: CONNECTIONS, seconds: scale.pageSeconds, rounds: scale.pageRounds, warmUpSeconds: scale.warmUpSeconds,
    });
    if (!page || !barePage) throw new Error('expected one result per server');
    return [page, barePage];
  } finally {
    await bare.close();
  }
}

/**
 * The decided history, newest decision first, paged as a client walks it: each page's `next_before` asks for the
 * next (CONTRACT §2). The deepest page (the oldest rejections) is measured beside the first page and a bare server
 * answering its JSON; its cursor is taken once from the page before it, asked by offset.
 */
async function measureHistory(server: SpawnedServer, scale: Scale): Promise<HistoryFigures> {
  const first = `/api/v1/queue?status=rejected&limit=${PAGE}`;
  const total = totalOf(await getJson(`${server.baseUrl}${first}`));
  const offset = Math.max(0, total - PAGE);
  const before = offset === 0 ? undefined : (await getJson(`${server.baseUrl}${first}&offset=${Math.max(0, offset - PAGE)}`) as { next_before?: string }).next_before;
  const deep = before === undefined ? first : `${first}&before=${before}`;
  const body: unknown = await getJson(`${server.baseUrl}${deep}`);
  const bare = await startBareJsonServer(() => body);
  try {
    const [firstPage, deepPage, bareDeepPage] = await measureSideBySide({
      urls: [`${server.baseUrl}${first}`, `${server.baseUrl}${deep}`, `${bare.url}${deep}`],
      connections: CONNECTIONS, seconds: scale.pageSeconds, rounds: scale.pageRounds, warmUpSeconds: scale.warmUpSeconds,
    });
    if (!firstPage || !deepPage || !bareDeepPage) throw new Error('expected one result per server');
    return { offset, total, firstPage, deepPage, bareDeepPage };
  } finally {
    await bare.close();
  }
}

/**
 * Approves pending items, each once, 32 at a time: half by id (POST /queue/{id}/approve), the other half by mbid
 * (POST /queue/approve {"mbids":[m]}), each list cut to what the fastest plausible run gets through in its bound.
 */
async function measureApprovals(server: SpawnedServer, pending: readonly PendingItem[], scale: Scale): Promise<{ byId: LoadResult; byMbid: LoadResult; asked: number }> {
  const asked = Math.min(Math.floor(pending.length / 2), scale.approveSeconds * APPROVALS_PER_SECOND_LISTED);
  const half = Math.floor(pending.length / 2);
  const approve = (requests: { path: string; body?: string }[]) =>
    measureHttp({ url: server.baseUrl, method: 'POST', connections: CONNECTIONS, seconds: scale.approveSeconds, requests });
  const byId = await approve(pending.slice(0, asked).map((item) => ({ path: `/api/v1/queue/${item.id}/approve` })));
  const byMbid = await approve(pending.slice(half, half + asked).map((item) => ({ path: '/api/v1/queue/approve', body: JSON.stringify({ mbids: [item.mbid] }) })));
  return { byId, byMbid, asked };
}

async function getJson(url: string): Promise<unknown> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${(await response.text()).slice(0, 500)}`);
  return response.json();
}

/** The `total` of a paged list answer. */
function totalOf(body: unknown): number {
  if (body && typeof body === 'object' && 'total' in body && typeof body.total === 'number') return body.total;
  throw new Error(`a list answered without a total: ${JSON.stringify(body).slice(0, 500)}`);
}

/** SIGTERM, insisting on exit status 0 (a clean stop leaves the WAL folded in for the next start): the ms it took. */
async function stopCleanly(server: SpawnedServer): Promise<number> {
  const asked = performance.now();
  const code = await server.stop();
  if (code !== 0) throw new Error(`the service on port ${server.port} exited with ${String(code)} after SIGTERM`);
  return performance.now() - asked;
}

function configYaml(dir: string, dataDir: string): string {
  return [
    'server:',
    '  host: 127.0.0.1',
    'storage:',
    `  dir: ${JSON.stringify(dataDir)}`,
    // The live bound at its highest, at every size, so a million pending items fit and no size runs another config.
    `  max_items: ${MAX_ITEMS}`,
    'log:',
    '  level: warn',
    'ui:',
    '  auth:',
    '    enabled: false',
    // Approved items reach the wishlist; a slow poll keeps the download client's own writes out of the figures.
    'download_client:',
    '  type: blackhole',
    '  poll_interval: 1h',
    `  requests_dir: ${JSON.stringify(join(dir, 'requests'))}`,
    `  complete_dir: ${JSON.stringify(join(dir, 'complete'))}`,
    'library:',
    '  type: filesystem',
    '  sync_interval: 1d',
    `  path: ${JSON.stringify(join(dir, 'music'))}`,
    '',
  ].join('\n');
}

runWhenMain(import.meta.url, run);
