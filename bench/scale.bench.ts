import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { bundleCrateflow, DEFAULT_BUNDLE } from '../core/build/bundle-crateflow.js';
import { startBareJsonServer } from './bare-json-server.js';
import type { BenchOptions } from './bench-options.js';
import { archiveFinishedDownloads } from './archive-finished-downloads.js';
import { settledDirectoryBytes } from './directory-bytes.js';
import { makeAlbumFolders, ownedAlbums, syncLibrary } from './fill-library.js';
import { benchCandidate, fillQueue, type PendingItem } from './fill-queue.js';
import { measureHttp, type LoadResult } from './measure-http.js';
import { measureSideBySide } from './measure-side-by-side.js';
import { postJson } from './post-json.js';
import { median, percent, printTable, type Cell } from './print-table.js';
import { residentMb } from './process-memory.js';
import { runWhenMain } from './run-when-main.js';
import { spawnServer, type SpawnedServer } from './spawned-server.js';
import { startScriptNodeFlags } from '../core/build/start-script-node-flags.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DEFAULT_SIZES = [1000, 10_000, 100_000];
const QUICK_SIZES = [1000];
const CONNECTIONS = 32;
const IDLE_MS = 2000;
const ADDED_FROM_INDEX = 1_000_000_000;
/** A start on 100,000 items reads them all before it answers; this only bounds a hang. */
const READY_TIMEOUT_MS = 120_000;
/** A clean stop folds the change log into the snapshot: tens of MB at 100,000 items on a slow disk. */
const STOP_TIMEOUT_MS = 60_000;
/** A first sync of 100,000 album folders walks them all. */
const SYNC_TIMEOUT_MS = 600_000;
const FULL = { starts: 5, pageSeconds: 8, pageRounds: 4, warmUpSeconds: 2, approveSeconds: 20, adds: 200 };
const QUICK = { starts: 2, pageSeconds: 2, pageRounds: 1, warmUpSeconds: 1, approveSeconds: 5, adds: 50 };
type Scale = typeof FULL;

/**
 * What became of the approved albums. `downloaded`: a year of use as the service is meant to run, each approved
 * album downloaded and filed in the library, so the library sync took it off the wishlist (the library of N
 * albums holds them) and its finished download is in the archive. `still wanted`: none was ever downloaded, so every approved album stays on the wishlist,
 * in memory: the worst case, measured at the largest size.
 */
type ApprovedAlbums = 'downloaded' | 'still wanted';

/** Every figure of one stored size. */
interface SizeFigures {
  size: number;
  approvedAlbums: ApprovedAlbums;
  wishlistItems: number;
  archivedDownloads: number;
  libraryAlbums: number;
  fillSeconds: number;
  startMs: number;
  rssMib: number;
  page: LoadResult;
  barePage: LoadResult;
  wishlistPage: LoadResult;
  bareWishlistPage: LoadResult;
  byId: LoadResult;
  byMbid: LoadResult;
  /** Pending items approved in each of the two approval runs (each id once). */
  approvalsAsked: number;
  bytesPerAdd: number;
  dataMib: number;
  load: number;
}

/**
 * Issue 17, point 5: how the service holds up as its store grows, for 1,000 / 10,000 / 100,000 stored queue
 * items of which 90% are decided and 10% pending (a year of use), beside a library of as many albums (a folder library,
 * synced once, holding the approved albums as downloaded; and, at the largest size, the same with none downloaded). The real service runs as `node dist/crateflow.mjs` with the node flags of `npm start`
 * on its own data dir, filled once per size through the public API and then restarted, so start-up and memory
 * are those of a service that reads the stored data. Load comes from wrk, beside a bare node:http server serving
 * the same JSON in the same run. The store is looked at only as the total size of its folder.
 */
export async function run(options: BenchOptions = { quick: false }): Promise<void> {
  const scale = options.quick ? QUICK : FULL;
  const sizes = options.sizes ?? (options.quick ? QUICK_SIZES : DEFAULT_SIZES);
  const bundle = await bundleCrateflow();
  const figures: SizeFigures[] = [];
  for (const size of sizes) figures.push(await measureSize(size, 'downloaded', scale));
  if (!options.quick) figures.push(await measureSize(Math.max(...sizes), 'still wanted', scale));

  const row = (name: string, cell: (f: SizeFigures) => Cell) => [name, ...figures.map(cell)];
  const rps = (r: LoadResult) => (r.failures > 0 ? `${r.requestsPerSecond.toLocaleString('en-US')} (${r.failures} failed)` : r.requestsPerSecond);
  // A list that did not finish within its bound still gives an honest rate, but the reader should know.
  const approvals = (r: LoadResult, f: SizeFigures) =>
    r.completed + r.failures < f.approvalsAsked ? `${rps(r).toLocaleString('en-US')} (${r.completed}/${f.approvalsAsked} in ${r.seconds} s)` : rps(r);
  printTable(
    `Scale: N stored queue items (90% decided, 10% pending) and an N-album library, real service (node dist/crateflow.mjs, flags of npm start), wrk c=${CONNECTIONS}`,
    ['figure', ...figures.map((f) => f.size.toLocaleString('en-US') + (f.approvedAlbums === 'downloaded' ? '' : ', none downloaded'))],
    [
      row(`start → first /health 200, ms (median of ${scale.starts})`, (f) => Math.round(f.startMs)),
      row(`RSS ${IDLE_MS / 1000} s after start, MiB (median of ${scale.starts})`, (f) => f.rssMib.toFixed(1)),
      row('GET /queue/pending?limit=50, req/s', (f) => rps(f.page)),
      row('  bare node:http, same JSON, req/s', (f) => rps(f.barePage)),
      row('  crateflow / bare', (f) => percent(f.page.requestsPerSecond, f.barePage.requestsPerSecond)),
      row('  p99 ms', (f) => f.page.p99Ms),
      row('GET /wishlist?limit=50 (first page), req/s', (f) => rps(f.wishlistPage)),
      row('  bare node:http, same JSON, req/s', (f) => rps(f.bareWishlistPage)),
      row('  crateflow / bare', (f) => percent(f.wishlistPage.requestsPerSecond, f.bareWishlistPage.requestsPerSecond)),
      row('POST /queue/{id}/approve, each id once, req/s', (f) => approvals(f.byId, f)),
      row('  p50 / p99 ms', (f) => `${f.byId.p50Ms} / ${f.byId.p99Ms}`),
      row('POST /queue/approve {"mbids":[m]}, req/s', (f) => approvals(f.byMbid, f)),
      row('  p50 / p99 ms', (f) => `${f.byMbid.p50Ms} / ${f.byMbid.p99Ms}`),
      row(`bytes appended to the data dir per queue add (${scale.adds} adds, one per POST)`, (f) => Math.round(f.bytesPerAdd)),
      row('data dir after the fill and a clean stop, MiB', (f) => f.dataMib.toFixed(1)),
      row('fill (add + decide and library sync through the API, archived downloads), s', (f) => f.fillSeconds.toFixed(1)),
      row('library albums after the sync', (f) => f.libraryAlbums),
      row('wishlist items after the sync (approved, not in the library)', (f) => f.wishlistItems),
      row('finished downloads in the archive', (f) => f.archivedDownloads),
      row('load average (1 min) when measured', (f) => f.load.toFixed(2)),
    ],
    [
      'approved albums: downloaded and filed in the library (the sync took them off the wishlist; their finished downloads, written by the store code after the fill, are in archive.jsonl), except in the "none downloaded" column, where all stay on the wishlist (all but the few handed to the download client wait in wishlist-waiting.jsonl, and a page reads them from disk)',
      `approvals are persisted: each 200 comes after its change is on disk; each pending item is approved once (half by id, half by mbid), within ${scale.approveSeconds} s each`,
      'bytes per add: growth of the whole data dir (snapshots and change logs alike), so it holds whatever files the store keeps',
      `bundle built by esbuild in ${bundle.ms} ms; figures taken while other work runs on the same cores are not comparable (see the load averages)`,
    ],
  );
}

async function measureSize(size: number, approvedAlbums: ApprovedAlbums, scale: Scale): Promise<SizeFigures> {
  const dir = await mkdtemp(join(tmpdir(), `crateflow-bench-scale-${size}-`));
  try {
    const config = join(dir, 'config.yaml');
    const dataDir = join(dir, 'data');
    const musicDir = join(dir, 'music');
    await mkdir(musicDir, { recursive: true });
    await writeFile(config, configYaml(dir, dataDir));
    const nodeFlags = await startScriptNodeFlags();
    const start = () => spawnServer({ cwd: ROOT, args: [...nodeFlags, DEFAULT_BUNDLE, '--config', config], readyTimeoutMs: READY_TIMEOUT_MS, stopTimeoutMs: STOP_TIMEOUT_MS });

    const fillStarted = performance.now();
    let downloadedAlbums: { artist: string; album: string }[] = [];
    const filling = await start();
    const { pending, libraryAlbums, wishlistItems } = await fillQueue(filling.baseUrl, size)
      .then(async (filled) => {
        const downloaded = approvedAlbums === 'downloaded' ? filled.approved.map((index) => benchCandidate(index)) : [];
        downloadedAlbums = downloaded;
        await makeAlbumFolders(musicDir, [...ownedAlbums(size - downloaded.length), ...downloaded]);
        const libraryAlbums = await syncLibrary(filling.baseUrl, SYNC_TIMEOUT_MS);
        const wishlistItems = await totalOf(`${filling.baseUrl}/api/v1/wishlist?limit=1`);
        const expected = filled.approved.length - downloaded.length;
        if (wishlistItems !== expected) throw new Error(`expected ${expected} wishlist items after the library sync, found ${wishlistItems}`);
        return { ...filled, libraryAlbums, wishlistItems };
      })
      .finally(() => stopCleanly(filling));
    if (approvedAlbums === 'downloaded') await archiveFinishedDownloads(dataDir, downloadedAlbums);
    const fillSeconds = (performance.now() - fillStarted) / 1000;
    const dataMib = (await settledDirectoryBytes(dataDir)) / 1024 / 1024;

    const starts: { ms: number; mib: number }[] = [];
    for (let i = 0; i < scale.starts; i++) {
      const server = await start();
      try {
        await sleep(IDLE_MS);
        starts.push({ ms: server.msToHealth, mib: await residentMb(server.pid) });
      } finally {
        await stopCleanly(server);
      }
    }

    const server = await start();
    try {
      const load = loadavg()[0] ?? 0;
      const bytesPerAdd = await measureBytesPerAdd(server, dataDir, scale.adds);
      const [page, barePage] = await measurePage(server, '/api/v1/queue/pending?limit=50', scale);
      const [wishlistPage, bareWishlistPage] = await measurePage(server, '/api/v1/wishlist?limit=50', scale);
      const half = Math.floor(pending.length / 2);
      const byId = await measureApprovals(server, pending.slice(0, half), 'id', scale);
      const byMbid = await measureApprovals(server, pending.slice(half, 2 * half), 'mbid', scale);
      return {
        size, approvedAlbums, wishlistItems, archivedDownloads: downloadedAlbums.length, libraryAlbums, fillSeconds, dataMib, load, bytesPerAdd, page, barePage, wishlistPage, bareWishlistPage, byId, byMbid, approvalsAsked: half,
        startMs: median(starts.map((s) => s.ms)),
        rssMib: median(starts.map((s) => s.mib)),
      };
    } finally {
      await stopCleanly(server);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The `total` of a paged list answer. */
async function totalOf(url: string): Promise<number> {
  const body: unknown = await (await fetch(url)).json();
  if (body && typeof body === 'object' && 'total' in body && typeof body.total === 'number') return body.total;
  throw new Error(`${url} answered without a total: ${JSON.stringify(body)}`);
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
  const body: unknown = await (await fetch(`${server.baseUrl}${path}`)).json();
  const bare = await startBareJsonServer(() => body);
  try {
    const [barePage, page] = await measureSideBySide({
      urls: [`${bare.url}${path}`, `${server.baseUrl}${path}`],
      connections: CONNECTIONS,
      seconds: scale.pageSeconds,
      rounds: scale.pageRounds,
      warmUpSeconds: scale.warmUpSeconds,
    });
    if (!page || !barePage) throw new Error('expected one result per server');
    return [page, barePage];
  } finally {
    await bare.close();
  }
}

/** Approves each item once, by id (POST /queue/{id}/approve) or by mbid (POST /queue/approve {"mbids":[m]}). */
async function measureApprovals(server: SpawnedServer, items: readonly PendingItem[], by: 'id' | 'mbid', scale: Scale): Promise<LoadResult> {
  const requests = items.map((item) =>
    by === 'id' ? { path: `/api/v1/queue/${item.id}/approve` } : { path: '/api/v1/queue/approve', body: JSON.stringify({ mbids: [item.mbid] }) },
  );
  return measureHttp({ url: server.baseUrl, method: 'POST', connections: CONNECTIONS, seconds: scale.approveSeconds, requests });
}

/** SIGTERM and insist on exit status 0: a clean stop is what leaves the data dir ready for the next start. */
async function stopCleanly(server: SpawnedServer): Promise<void> {
  const code = await server.stop();
  if (code !== 0) throw new Error(`the service on port ${server.port} exited with ${String(code)} after SIGTERM`);
}

function configYaml(dir: string, dataDir: string): string {
  return [
    'server:',
    '  host: 127.0.0.1',
    'storage:',
    `  dir: ${JSON.stringify(dataDir)}`,
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
