import type { FilledDataDir } from './fill-data-dir.js';
import type { QueueMix } from './fill-queue.js';
import type { LoadResult } from './measure-http.js';
import { percent, printTable, type Cell } from './print-table.js';

/** Issue #29's targets for a store of up to a million items. */
export const SCALE_TARGETS = { startMs: 250, rssMib: 80, stopMs: 200, pageShareOfBare: 0.5, approvalsPerSecond: 3000, deepHistoryPerSecond: 2000 };

/** The decided history's first page and its deepest, asked by the cursor the page before it gives. */
export interface HistoryFigures {
  offset: number;
  total: number;
  firstPage: LoadResult;
  deepPage: LoadResult;
  bareDeepPage: LoadResult;
}

/** Every figure of one mix at one stored size. */
export interface SizeFigures {
  mix: QueueMix;
  size: number;
  filled: FilledDataDir;
  dataMib: number;
  startMs: number;
  rssMib: number;
  stopMs: number;
  stopAfterLoadMs: number;
  page: LoadResult;
  barePage: LoadResult;
  wishlistPage: LoadResult;
  bareWishlistPage: LoadResult;
  /** Undefined when nothing was decided (the all-pending mix). */
  history: HistoryFigures | undefined;
  byId: LoadResult;
  byMbid: LoadResult;
  /** Pending items listed for each of the two approval runs (each id once). */
  approvalsAsked: number;
  /** Undefined when the store was too full (storage.max_items) to add more. */
  bytesPerAdd: number | undefined;
  load: number;
}

export interface TableSettings {
  connections: number;
  idleMs: number;
  starts: number;
  adds: number;
  page: number;
  bundleMs: number;
}

const MIX_TITLES: Record<QueueMix, string> = {
  pending: 'all N pending',
  decided: '10% pending, 90% decided (half approved, downloaded since: archived downloads, library of the approved albums), half rejected',
  waiting: '10% pending, 45% rejected, 45% approved and waiting on the wishlist (nothing downloaded)',
};

/** One table per mix: a column per size, then the target; a figure that misses its target says MISS. */
export function printScaleTable(mix: QueueMix, figures: readonly SizeFigures[], settings: TableSettings): void {
  const t = SCALE_TARGETS;
  const row = (name: string, target: string, cell: (f: SizeFigures) => Cell) => [name, ...figures.map(cell), target];
  const noHistory = 'n/a';
  const pageRows = (name: string, page: (f: SizeFigures) => LoadResult, bare: (f: SizeFigures) => LoadResult, judged: boolean) => [
    row(`${name}, req/s`, '', (f) => rps(page(f))),
    row('  bare node:http, same JSON, req/s', '', (f) => rps(bare(f))),
    row('  crateflow / bare', judged ? `≥ ${t.pageShareOfBare * 100}%` : '', (f) => judge(percent(page(f).requestsPerSecond, bare(f).requestsPerSecond), !judged || page(f).requestsPerSecond >= t.pageShareOfBare * bare(f).requestsPerSecond)),
    row('  p99 ms', '', (f) => page(f).p99Ms),
  ];
  const approvals = (name: string, result: (f: SizeFigures) => LoadResult) => [
    row(`${name}, approvals/s`, `≥ ${t.approvalsPerSecond.toLocaleString('en-US')}`, (f) => judge(approvalRate(result(f), f.approvalsAsked), result(f).requestsPerSecond >= t.approvalsPerSecond)),
    row('  p50 / p99 ms', '', (f) => `${result(f).p50Ms} / ${result(f).p99Ms}`),
  ];
  printTable(
    `Scale, ${mix}: ${MIX_TITLES[mix]}; real service (node dist/crateflow.mjs, flags of npm start), wrk c=${settings.connections}`,
    ['figure', ...figures.map((f) => f.size.toLocaleString('en-US')), 'target'],
    [
      row(`start → first /health 200, ms (median of ${settings.starts})`, `≤ ${t.startMs}`, (f) => judge(Math.round(f.startMs), f.startMs <= t.startMs)),
      row(`RSS ${settings.idleMs / 1000} s after start, MiB (median of ${settings.starts})`, `≤ ${t.rssMib}`, (f) => judge(f.rssMib.toFixed(1), f.rssMib <= t.rssMib)),
      row(`SIGTERM → exit 0 after those ${settings.idleMs / 1000} s idle, ms (median)`, `≤ ${t.stopMs}`, (f) => judge(Math.round(f.stopMs), f.stopMs <= t.stopMs)),
      row('SIGTERM → exit 0 after the load below, ms', `≤ ${t.stopMs}`, (f) => judge(Math.round(f.stopAfterLoadMs), f.stopAfterLoadMs <= t.stopMs)),
      ...pageRows(`GET /queue/pending?limit=${settings.page}`, (f) => f.page, (f) => f.barePage, true),
      ...pageRows(`GET /wishlist?limit=${settings.page} (first page)`, (f) => f.wishlistPage, (f) => f.bareWishlistPage, false),
      row(`GET /queue?status=rejected&limit=${settings.page} (newest decisions), req/s`, '', (f) => (f.history ? rps(f.history.firstPage) : noHistory)),
      row('  the oldest page (before = cursor of the one above it), req/s', `≥ ${t.deepHistoryPerSecond.toLocaleString('en-US')}`, (f) =>
        f.history ? judge(rps(f.history.deepPage), f.history.deepPage.requestsPerSecond >= t.deepHistoryPerSecond) : noHistory),
      row('    rejected items above it', '', (f) => (f.history ? f.history.offset : noHistory)),
      row('    p50 / p99 ms', '', (f) => (f.history ? `${f.history.deepPage.p50Ms} / ${f.history.deepPage.p99Ms}` : noHistory)),
      row('    bare node:http, same JSON, req/s', '', (f) => (f.history ? rps(f.history.bareDeepPage) : noHistory)),
      ...approvals('POST /queue/{id}/approve, each id once', (f) => f.byId),
      ...approvals('POST /queue/approve {"mbids":[m]}, each once', (f) => f.byMbid),
      row(`bytes added to the data dir per queue add (${settings.adds} adds, one per POST)`, '', (f) => (f.bytesPerAdd === undefined ? 'n/a (full)' : Math.round(f.bytesPerAdd))),
      row('data dir after the fill, MiB', '', (f) => f.dataMib.toFixed(1)),
      row('fill through the tables (service stopped), s', '', (f) => f.filled.seconds.toFixed(1)),
      row('stored: pending / approved / rejected', '', (f) => `${f.filled.pending.length} / ${f.filled.approved} / ${f.filled.rejected}`),
      row('stored: wishlist / archived downloads / library albums', '', (f) => `${f.filled.wishlistItems} / ${f.filled.archivedDownloads} / ${f.filled.libraryAlbums}`),
      row('load average (1 min) when measured', '', (f) => f.load.toFixed(2)),
    ],
    [
      'approvals are persisted: each 200 comes after its change is on disk; each pending item is approved once (half by id, half by mbid), a list ending early when every item listed was approved',
      'history: the oldest page is asked by keyset (`before` = the `next_before` of the page before it), as a client walking the history asks it',
      'bytes per add: growth of the whole data dir (database and WAL), n/a where the store holds storage.max_items live items already',
      `bundle built by esbuild in ${settings.bundleMs} ms; figures taken while other work runs on the same cores are not comparable (see the load averages)`,
    ],
  );
}

/** A throughput, with its failures when there were any. */
function rps(r: LoadResult): string {
  return r.failures > 0 ? `${r.requestsPerSecond.toLocaleString('en-US')} (${r.failures} failed)` : r.requestsPerSecond.toLocaleString('en-US');
}

/** A list that did not finish within its bound still gives an honest rate, but the reader should know. */
function approvalRate(r: LoadResult, asked: number): string {
  return r.completed + r.failures < asked ? `${rps(r)} (${r.completed}/${asked} in ${r.seconds} s)` : rps(r);
}

function judge(text: Cell, met: boolean): string {
  const shown = typeof text === 'number' ? text.toLocaleString('en-US') : text;
  return met ? shown : `${shown} MISS`;
}
