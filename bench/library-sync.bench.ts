import type { LibraryBackend, PluginDefinition } from '@crateflow/sdk';
import jellyfin from '@crateflow/library-jellyfin';
import subsonic from '@crateflow/library-subsonic';
import { createLogger } from '../core/logging/create-logger.js';
import { startFakeJellyfin } from '../test/fakes/fake-jellyfin.js';
import { startFakeSubsonic } from '../test/fakes/fake-subsonic.js';
import { generateAlbums, type FakeAlbum } from '../test/fakes/generate-albums.js';
import { createPluginTestContext } from '../test/helpers/plugin-test-context.js';
import { startApp } from '../test/helpers/start-app.js';
import { printTable, type Cell } from './print-table.js';
import { runWhenMain } from './run-when-main.js';

const ALBUMS = 50_000;
const WISHLIST = 200;
const MIB = 1024 * 1024;

interface Measured {
  seconds: number;
  peakRssMib: number;
  peakHeapMib: number;
  /** Peak heap above what was in use when the phase started. */
  heapGrowthMib: number;
}

/**
 * Issue 6, point 5: a 50,000-album library read through the fake Subsonic and the fake Jellyfin, first by the
 * plugin alone (each page dropped once counted: what the plugin itself holds), then as the whole sync job over
 * HTTP (catalogue replaced, wishlist matched). The fakes run in this process, so their CPU and memory are in the
 * figures too. Run alone with `node --expose-gc node_modules/.bin/tsx --conditions=crateflow-source bench/library-sync.bench.ts`
 * (without --expose-gc the heap baseline includes garbage).
 */
export async function run(): Promise<void> {
  const albums = generateAlbums(ALBUMS, { untaggedEvery: 7 });
  const rows: Cell[][] = [];
  const subsonicFake = await startFakeSubsonic({ username: 'bench', password: 'bench-password', albums });
  const jellyfinFake = await startFakeJellyfin({ apiKey: 'bench-api-key-0123456789', albums });
  try {
    const subsonicConfig = { type: 'subsonic', url: subsonicFake.url, username: 'bench', password: 'bench-password' };
    const jellyfinConfig = { type: 'jellyfin', url: jellyfinFake.url, api_key: 'bench-api-key-0123456789' };
    // Warm the fakes' sorted views, so the figures measure the client side rather than the fakes' first sort.
    await iteratePlugin(subsonic, subsonicConfig);
    await iteratePlugin(jellyfin, jellyfinConfig);

    for (const [name, plugin, config] of [['subsonic', subsonic, subsonicConfig], ['jellyfin', jellyfin, jellyfinConfig]] as const) {
      const { result, value } = await measure(() => iteratePlugin(plugin, config));
      rows.push([`${name}: plugin albums()`, value.albums, value.pages, ...figures(result), value.withMbid]);
    }
    for (const [name, config] of [['subsonic', subsonicConfig], ['jellyfin', jellyfinConfig]] as const) {
      const { result, value } = await wholeSync(config, albums);
      rows.push([`${name}: sync job`, value.albums, '-', ...figures(result), `removed ${value.removed}/${WISHLIST}`]);
    }
  } finally {
    await subsonicFake.close();
    await jellyfinFake.close();
  }
  printTable(
    `library sync of ${ALBUMS.toLocaleString('en-US')} albums through the fakes`,
    ['what', 'albums', 'pages', 'seconds', 'peak RSS MiB', 'peak heap MiB', 'heap growth MiB', 'notes'],
    rows,
    [
      'plugin albums(): pages are counted and dropped, so heap growth is what the plugin holds (one page at a time)',
      'sync job: POST /library/sync until the job ends; the catalogue of all albums is kept by design',
      `gc between phases: ${typeof Reflect.get(globalThis, 'gc') === 'function' ? 'yes' : 'no (run with node --expose-gc for a clean baseline)'}`,
    ],
  );
}

async function iteratePlugin<S extends PluginDefinition<'library'>>(plugin: S, config: Record<string, unknown>): Promise<{ albums: number; pages: number; withMbid: string }> {
  const { type: _type, ...pluginConfig } = config;
  const harness = createPluginTestContext(plugin, pluginConfig, { httpTimeoutMs: 60_000 });
  try {
    const backend: LibraryBackend = await plugin.create(harness.context);
    let count = 0;
    let pages = 0;
    let withMbid = 0;
    for await (const page of backend.albums(harness.context.signal)) {
      pages++;
      count += page.length;
      for (const album of page) if (album.mbid) withMbid++;
    }
    return { albums: count, pages, withMbid: `${withMbid} with mbid` };
  } finally {
    await harness.close();
  }
}

async function wholeSync(library: Record<string, unknown>, albums: readonly FakeAlbum[]): Promise<{ result: Measured; value: { albums: number; removed: number } }> {
  const app = await startApp({ config: { library: { sync_interval: '1d', ...library } }, log: createLogger('warn'), validateResponses: false });
  try {
    // Every second wished album is in the library (by mbid or, for untagged ones, by name).
    for (let i = 0; i < WISHLIST; i++) {
      const owned = albums[i * 97];
      const item = i % 2 === 0 && owned ? { artist: owned.artist, album: owned.name, ...(owned.mbid ? { mbid: owned.mbid } : {}) } : { artist: `Wanted ${i}`, album: `Not owned ${i}` };
      const res = await fetch(`${app.baseUrl}/api/v1/wishlist`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...item, source: 'bench' }) });
      if (res.status !== 201) throw new Error(`adding a wishlist item answered ${res.status}: ${await res.text()}`);
    }
    return await measure(async () => {
      const started = await fetch(`${app.baseUrl}/api/v1/library/sync`, { method: 'POST' });
      const jobId = jobIdOf(await started.json());
      for (;;) {
        const job: unknown = await (await fetch(`${app.baseUrl}/api/v1/jobs/${jobId}`)).json();
        const status = field(job, 'status');
        if (status === 'failed') throw new Error(`the sync failed: ${String(field(job, 'error'))}`);
        if (status === 'completed') {
          const summary = field(job, 'summary');
          return { albums: Number(field(summary, 'albums')), removed: Number(field(summary, 'removed')) };
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });
  } finally {
    await app.close();
  }
}

/** Runs `fn`, sampling memory every 10 ms; heap growth is measured from a collected baseline when gc is exposed. */
async function measure<T>(fn: () => Promise<T>): Promise<{ result: Measured; value: T }> {
  const gc: unknown = Reflect.get(globalThis, 'gc');
  if (typeof gc === 'function') gc();
  const baseline = process.memoryUsage().heapUsed;
  let peakRss = process.memoryUsage.rss();
  let peakHeap = baseline;
  const sample = (): void => {
    const usage = process.memoryUsage();
    peakRss = Math.max(peakRss, usage.rss);
    peakHeap = Math.max(peakHeap, usage.heapUsed);
  };
  const timer = setInterval(sample, 10);
  const started = performance.now();
  try {
    const value = await fn();
    sample();
    const seconds = (performance.now() - started) / 1000;
    return { value, result: { seconds, peakRssMib: peakRss / MIB, peakHeapMib: peakHeap / MIB, heapGrowthMib: (peakHeap - baseline) / MIB } };
  } finally {
    clearInterval(timer);
  }
}

function figures(m: Measured): Cell[] {
  return [m.seconds.toFixed(2), m.peakRssMib.toFixed(0), m.peakHeapMib.toFixed(0), m.heapGrowthMib.toFixed(0)];
}

function field(value: unknown, key: string): unknown {
  return value && typeof value === 'object' && key in value ? Reflect.get(value, key) : undefined;
}

function jobIdOf(body: unknown): string {
  const id = field(field(body, 'job'), 'id');
  if (typeof id !== 'string') throw new Error(`POST /library/sync answered without a job id: ${JSON.stringify(body)}`);
  return id;
}

runWhenMain(import.meta.url, run);
