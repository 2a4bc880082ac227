import { createHttpClient, type DiscoverySource } from '@crateflow/sdk';
import { ManualClock as ContextClock, MemoryStorage } from '@crateflow/sdk/testing';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { createLogger } from '../../../core/logging/create-logger.js';
import { MusicBrainzClient } from '../../../core/metadata/musicbrainz-client.js';
import newReleases from '../../../plugins/source-new-releases/index.js';
import { startFakeMusicBrainz, type FakeMusicBrainz } from '../../fakes/fake-musicbrainz.js';
import { generateMusicBrainzCatalogue, type MusicBrainzCatalogue } from '../../fakes/musicbrainz-catalogue.js';
import { inFlightHttpClient } from '../../helpers/in-flight-http-client.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { createPluginTestContext } from '../../helpers/plugin-test-context.js';
import { runOnClock } from '../../helpers/run-on-clock.js';
import { collect, FakeSourceRun } from '../source-shared/fake-source-run.js';

const ARTISTS = 2000;

interface Paced {
  readonly fake: FakeMusicBrainz;
  readonly catalogue: MusicBrainzCatalogue;
  readonly clock: ManualClock;
  readonly storage: MemoryStorage;
  /** Runs the source once, on a MusicBrainz client opened afresh (a restart), at the real 1 request/s pace. */
  run(source: (musicbrainz: MusicBrainzClient) => Promise<DiscoverySource>, run: FakeSourceRun): ReturnType<typeof collect>;
}

/**
 * MusicBrainz's rule at full strength: the fake refuses anything over 1 request/s on the same manual clock the
 * shared client paces on, so a run that ever went too fast would see 503s (and the fake would count them).
 */
async function paced(t: TestContext): Promise<Paced> {
  const catalogue = generateMusicBrainzCatalogue({ artists: ARTISTS, releaseGroupsPerArtist: 3, prolificReleaseGroups: 3 });
  const clock = new ManualClock(Date.parse('2019-12-31T12:00:00.000Z'));
  const fake = await startFakeMusicBrainz({ catalogue, clock, rateLimit: { perSecond: 1, burst: 1 } });
  const dataDir = await mkdtemp(join(tmpdir(), 'crateflow-large-'));
  const http = createHttpClient({ userAgent: 'replaced-by-the-client', defaultTimeoutMs: 5000 });
  const clients: MusicBrainzClient[] = [];
  t.after(async () => {
    await Promise.all([...clients.map((client) => client.close()), http.close(), fake.close()]);
    await rm(dataDir, { recursive: true, force: true });
  });
  const { client: counted, busy } = inFlightHttpClient(http);
  const storage = new MemoryStorage();
  return {
    fake, catalogue, clock, storage,
    async run(make, run) {
      // A restart takes longer than a second: the new client's pacer cannot know when the old one last asked.
      await clock.advance(1000);
      const client = await MusicBrainzClient.open({ version: '0.0.0-test', contact: 'https://example.org/crateflow-test', dataDir, clock, log: createLogger('silent'),
        baseUrl: fake.url, http: counted, minIntervalMs: 1000 });
      clients.push(client);
      const source = await make(client);
      return runOnClock(clock, collect(source, run), { busy, limitMs: 10 * 24 * 60 * 60 * 1000 });
    },
  };
}

describe('source-new-releases over a 2,000-artist library at 1 request/s', () => {
  it('resumes after a stop at artist 1,000 without one repeated request, and a warm second run asks nothing', async (t) => {
    const world = await paced(t);
    const make = async (musicbrainz: MusicBrainzClient) => {
      const harness = createPluginTestContext(newReleases, { first_run_days: 365 }, { musicbrainz, storage: world.storage, clock: new ContextClock(world.clock.now()) });
      t.after(() => harness.close());
      return newReleases.create(harness.context);
    };
    const library = () => world.catalogue.artists.slice(0, ARTISTS).map((artist, index) => ({ name: artist.name, albums: 1 + (index % 7) }));
    const started = world.clock.now();

    const first = await world.run(make, new FakeSourceRun({ artists: library(), abortAtProgress: 1000 }));
    // The fake sheds every 8th request as real MusicBrainz does under load; a shed request is asked again, so the
    // counts below are of requests answered (not refused with 503).
    const answered = () => world.fake.answered.filter((request) => request.status !== 503);
    const searches = () => answered().filter((request) => request.path.startsWith('/ws/2/artist')).length;
    const searchesBefore = searches();
    assert.ok(searchesBefore >= 999 && searchesBefore <= 1001, `stopped near artist 1,000 (${searchesBefore} searches)`);
    const rest = await world.run(make, new FakeSourceRun({ artists: library() }));

    const urls = answered().map((request) => `${request.path}?${request.query.toString()}`);
    const twice = urls.filter((url, index) => urls.indexOf(url) !== index);
    assert.deepEqual(twice, [], 'no request was answered twice');
    assert.equal(searches(), ARTISTS, 'one name search per artist');
    assert.ok(world.fake.shed > 0, 'the run went through load shedding');
    assert.equal(world.fake.refusedForRate, 0, 'never over 1 request/s');
    assert.ok(world.clock.now() - started >= (world.fake.answered.length - 1) * 1000);
    const found = [...first, ...rest];
    assert.ok(found.length > 0);
    assert.equal(new Set(found.map((candidate) => candidate.mbid)).size, found.length, 'nothing proposed twice');

    const before = world.fake.answered.length;
    const again = await world.run(make, new FakeSourceRun({ artists: library() }));
    assert.equal(again.length, found.length);
    assert.equal(world.fake.answered.length, before, 'a warm cache answers everything');
  });
});
