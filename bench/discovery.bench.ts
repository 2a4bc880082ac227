import { createHttpClient, type DiscoverySource, type SourceCandidate } from '@crateflow/sdk';
import { ManualClock as ContextClock, MemoryStorage } from '@crateflow/sdk/testing';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../core/logging/create-logger.js';
import { MusicBrainzClient } from '../core/metadata/musicbrainz-client.js';
import newReleases from '../plugins/source-new-releases/index.js';
import { startFakeMusicBrainz, type FakeMusicBrainz } from '../test/fakes/fake-musicbrainz.js';
import { generateMusicBrainzCatalogue } from '../test/fakes/musicbrainz-catalogue.js';
import { inFlightHttpClient } from '../test/helpers/in-flight-http-client.js';
import { ManualClock } from '../test/helpers/manual-clock.js';
import { createPluginTestContext } from '../test/helpers/plugin-test-context.js';
import { runOnClock } from '../test/helpers/run-on-clock.js';
import { collect, FakeSourceRun } from '../test/plugins/source-shared/fake-source-run.js';
import type { BenchOptions } from './bench-options.js';
import { printTable } from './print-table.js';
import { runWhenMain } from './run-when-main.js';

const FULL_ARTISTS = 2000;
const QUICK_ARTISTS = 100;
const DAY_MS = 24 * 60 * 60 * 1000;

interface RunFigures {
  name: string;
  requests: number;
  refused: number;
  candidates: number;
  /** Time on the rate-limited clock: what the run takes against musicbrainz.org at 1 request/s. */
  pacedMs: number;
  /** Real time this process spent (the fakes answer at once; the clock is moved instead of waited on). */
  realMs: number;
}

/**
 * Issue 19, point 5: what a discovery run costs MusicBrainz, for a library of 2,000 artists (`new-releases`, the
 * source that walks the whole library): a first run stopped halfway (as a kill -9 would) and resumed after a
 * restart, a second run the same day with a warm cache, and one a week later when the cached artist browses have
 * expired. The MusicBrainz fake refuses anything over 1 request/s with a 503, on the same manual clock the shared
 * client paces on: the paced time is the wall time of a real run, without the bench waiting for it.
 */
export async function run(options: BenchOptions = { quick: false }): Promise<void> {
  const artists = options.quick ? QUICK_ARTISTS : FULL_ARTISTS;
  const catalogue = generateMusicBrainzCatalogue({ artists, releaseGroupsPerArtist: 3, prolificReleaseGroups: 3 });
  const clock = new ManualClock(Date.parse('2019-12-31T12:00:00.000Z'));
  const fake = await startFakeMusicBrainz({ catalogue, clock, rateLimit: { perSecond: 1, burst: 1 } });
  const dataDir = await mkdtemp(join(tmpdir(), 'crateflow-bench-discovery-'));
  const http = createHttpClient({ userAgent: 'replaced-by-the-client', defaultTimeoutMs: 10_000 });
  const { client: counted, busy } = inFlightHttpClient(http);
  const storage = new MemoryStorage();
  const clients: MusicBrainzClient[] = [];
  const closers: (() => Promise<void>)[] = [];
  const library = catalogue.artists.slice(0, artists).map((artist, index) => ({ name: artist.name, albums: 1 + (index % 7) }));
  const figures: RunFigures[] = [];

  /** One run on a client opened afresh (a restart: a second later, with the disk cache the last one filled). */
  const measure = async (name: string, runOptions: { abortAtProgress?: number } = {}): Promise<SourceCandidate[]> => {
    await clock.advance(1000);
    const client = await MusicBrainzClient.open({
      version: '0.0.0-bench', contact: 'https://example.org/crateflow-bench', dataDir, clock, log: createLogger('silent'),
      baseUrl: fake.url, http: counted, minIntervalMs: 1000,
    });
    clients.push(client);
    const harness = createPluginTestContext(newReleases, { first_run_days: 365 }, { musicbrainz: client, storage, clock: new ContextClock(clock.now()) });
    closers.push(() => harness.close());
    const source: DiscoverySource = await newReleases.create(harness.context);
    const [requestsBefore, refusedBefore, pacedBefore, realBefore] = [fake.answered.length, fake.refusedForRate, clock.now(), performance.now()];
    const found = await runOnClock(clock, collect(source, new FakeSourceRun({ artists: library, ...runOptions })), { busy, limitMs: 30 * DAY_MS });
    figures.push({
      name, requests: fake.answered.length - requestsBefore, refused: fake.refusedForRate - refusedBefore, candidates: found.length,
      pacedMs: clock.now() - pacedBefore, realMs: performance.now() - realBefore,
    });
    return found;
  };

  try {
    await measure(`first run, stopped at artist ${artists / 2} (kill -9)`, { abortAtProgress: artists / 2 });
    await measure('  … resumed after the restart');
    await measure('second run, same day (warm cache)');
    await clock.advance(8 * DAY_MS);
    await measure('a week later (artist browses expired)');
    printTable(
      `Discovery: new-releases over a ${artists.toLocaleString('en-US')}-artist library, MusicBrainz fake at 1 request/s (503 past it)`,
      ['run', 'MusicBrainz requests', 'per artist', '503 for rate', 'candidates', 'paced time (= real run at 1 req/s)', 'bench real time'],
      figures.map((f) => [f.name, f.requests, (f.requests / artists).toFixed(2), f.refused, f.candidates, duration(f.pacedMs), duration(f.realMs)]),
      [
        `requests asked twice before the week passed (work redone across the stop, the restart and the warm run): ${countRepeatsBeforeExpiry(fake, figures)}`,
        'each artist costs one name search (kept in the plugin storage for cache_days) and one release-group browse (cached 7 days by the shared client)',
        `load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}`,
      ],
    );
  } finally {
    await Promise.all([...closers.map((close) => close()), ...clients.map((client) => client.close())]);
    await Promise.all([http.close(), fake.close()]);
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Requests asked more than once during the first three runs (before the cache's week could expire anything). */
function countRepeatsBeforeExpiry(fake: FakeMusicBrainz, figures: readonly RunFigures[]): number {
  const firstThree = figures.slice(0, 3).reduce((sum, f) => sum + f.requests, 0);
  const urls = fake.answered.slice(0, firstThree).map((request) => `${request.path}?${request.query.toString()}`);
  return urls.length - new Set(urls).size;
}

function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = Math.round(ms / 1000);
  return seconds < 120 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

runWhenMain(import.meta.url, run);
