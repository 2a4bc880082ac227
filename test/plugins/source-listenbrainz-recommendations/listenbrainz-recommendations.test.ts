import { isRetryLaterError, type DiscoverySource } from '@crateflow/sdk';
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import recommendations from '../../../plugins/source-listenbrainz-recommendations/index.js';
import type { FakeListenBrainzUser } from '../../fakes/listenbrainz-users.js';
import type { MbRecording, MusicBrainzCatalogue } from '../../fakes/musicbrainz-catalogue.js';
import { createPluginTestContext } from '../../helpers/plugin-test-context.js';
import { collect, FakeSourceRun, takeThenKill } from '../source-shared/fake-source-run.js';
import { requestsTo, startSourceWorld, type SourceWorld, type SourceWorldOptions } from '../source-shared/source-world.js';

const CF = '/1/cf/recommendation/user/';
const TOKEN = 'ana-secret-token-1234';

async function setUp(t: TestContext, options: SourceWorldOptions = {}): Promise<SourceWorld> {
  return startSourceWorld(t, options);
}

/** A source on the world, as the server would create it after a (re)start: a new MusicBrainz client, same storage and cache. */
async function openSource(t: TestContext, world: SourceWorld, config: Record<string, unknown> = {}) {
  const musicbrainz = await world.openMusicBrainz();
  const harness = createPluginTestContext(recommendations, { user: 'rob', listenbrainz_url: world.listenbrainz.url, ...config },
    { musicbrainz, storage: world.storage });
  t.after(() => harness.close());
  const source: DiscoverySource = await recommendations.create(harness.context);
  return { source, log: harness.context.log };
}

/** The recordings of the catalogue's release groups by shape, for hand-made recommendation lists. */
function recordingsOf(catalogue: MusicBrainzCatalogue, groupIndex: number): MbRecording[] {
  const group = catalogue.releaseGroups[groupIndex];
  return catalogue.recordings.filter((recording) => recording.title.startsWith(`${group?.title ?? '?'} (track`));
}

/** Every track of every studio album, none listened to: enough candidates for several batches. */
function max(catalogue: MusicBrainzCatalogue): FakeListenBrainzUser[] {
  const albums = new Set(catalogue.releaseGroups.filter((group) => group.primaryType === 'Album' && group.secondaryTypes.length === 0).map((group) => group.title));
  const recordings = catalogue.recordings.filter((recording) => albums.has(recording.title.replace(/ \(track \d\)$/, '')));
  return [{ name: 'max', token: 'max-token', lastUpdated: 1_788_494_361,
    recommendations: recordings.map((recording, index) => ({ recording_mbid: recording.id, score: 3 - index / 50, latest_listened_at: null })) }];
}

function ana(catalogue: MusicBrainzCatalogue): FakeListenBrainzUser {
  // Group 0 and 1 are studio albums, 3 a single, 4 a compilation, 5 live (musicbrainz-catalogue.ts SHAPES).
  const pick = (group: number, track: number) => recordingsOf(catalogue, group)[track]?.id ?? '';
  const rows = [pick(1, 0), pick(0, 0), pick(3, 0), pick(4, 1), pick(5, 0), pick(0, 1), pick(16, 0)];
  return {
    name: 'ana', token: TOKEN, lastUpdated: 1_788_494_361,
    recommendations: rows.map((recording_mbid, index) => ({ recording_mbid, score: 4 - index * 0.9, latest_listened_at: null })),
  };
}

describe('source-listenbrainz-recommendations', () => {
  it('aggregates recommended recordings per studio album, counts them in the reason, and ranks the album with more first', async (t) => {
    const anaWorld = await setUp(t, { listenBrainzUsers: (catalogue) => [ana(catalogue)] });
    const { source, log } = await openSource(t, anaWorld, { user: 'ANA', token: TOKEN });
    const groups = anaWorld.catalogue.releaseGroups;
    const run = new FakeSourceRun({ known: [[groups[16]?.id ?? '', 'rejected']] });
    const found = await collect(source, run);

    assert.deepEqual(found.map((candidate) => candidate.mbid), [groups[0]?.id, groups[1]?.id]);
    assert.deepEqual(found.map((candidate) => candidate.reasons[0]?.text), ['recommended from your listening: 2 tracks', 'recommended from your listening: 1 track']);
    assert.equal(found[0]?.score, 1);
    assert.ok((found[1]?.score ?? 1) < 1 && (found[1]?.score ?? 0) > 0);
    assert.equal(found[0]?.artist, groups[0]?.credit[0]?.name);
    assert.deepEqual(found[0]?.reasons[0]?.refs.slice(0, 2), [{ type: 'user', name: 'ANA' },
      { type: 'artist', name: groups[0]?.credit[0]?.artist.name, mbid: groups[0]?.credit[0]?.artist.id }]);
    // The single, the live album and the compilation-only track gave nothing; the rejected album was never proposed.
    assert.ok(run.knownChecks.some((check) => check.mbid === groups[16]?.id));
    // The token went as "Authorization: Token …" and into no log line.
    const sent = anaWorld.listenbrainz.received.find((request) => request.path.startsWith(CF));
    assert.equal(sent?.headers.authorization, `Token ${TOKEN}`);
    assert.ok(!JSON.stringify(log.entries).includes(TOKEN));
  });

  it('treats 204 (nothing computed yet) as a clean run with no candidates and no MusicBrainz requests', async (t) => {
    const world = await setUp(t);
    const { source } = await openSource(t, world, { user: 'newbie' });
    const run = new FakeSourceRun();
    assert.deepEqual(await collect(source, run), []);
    assert.equal(requestsTo(world.listenbrainz.received, CF), 1);
    assert.equal(world.musicbrainz.answered.length, 0);
    assert.deepEqual(run.progressReports, [{ done: 0, total: 0 }]);
  });

  it('names the config key when ListenBrainz does not know the user', async (t) => {
    const world = await setUp(t);
    const { source } = await openSource(t, world, { user: 'nobody-here' });
    await assert.rejects(collect(source, new FakeSourceRun()), /does not know the user "nobody-here" \(config key user\)/);
  });

  it('turns a 500 (a stored list the server cannot read) into a RetryLaterError, with no MusicBrainz request', async (t) => {
    const world = await setUp(t);
    const { source } = await openSource(t, world, { user: 'broken' });
    await assert.rejects(collect(source, new FakeSourceRun()), (err: unknown) => isRetryLaterError(err) && /\(500\): An unknown error occured/.test(err.message));
    assert.equal(world.musicbrainz.answered.length, 0);
  });

  it('turns a 429 into a RetryLaterError with the window\'s reset time', async (t) => {
    const world = await setUp(t, { listenbrainz: { rateLimit: 0 } });
    const { source } = await openSource(t, world);
    await assert.rejects(collect(source, new FakeSourceRun()), (err: unknown) => {
      assert.ok(isRetryLaterError(err), String(err));
      assert.ok(err.retryAfterMs !== undefined && err.retryAfterMs <= 10_000);
      return true;
    });
  });

  it('skips recordings the user has already listened to, and proposes studio albums only', async (t) => {
    const world = await setUp(t);
    const { source } = await openSource(t, world);
    const found = await collect(source, new FakeSourceRun());
    assert.ok(found.length > 0);
    for (const candidate of found) {
      const group = world.catalogue.releaseGroup(candidate.mbid);
      assert.equal(group?.primaryType, 'Album');
      assert.deepEqual(group?.secondaryTypes, []);
    }
    const rob = world.listenbrainz.users[0];
    const unlistened = rob?.recommendations?.filter((item) => item.latest_listened_at === null).length;
    assert.equal(requestsTo(world.musicbrainz.answered, '/ws/2/recording/'), unlistened);
  });

  it('resumes after a shutdown midway at the next recording, repeating no request', async (t) => {
    const reference = await setUp(t);
    const expected = await collect((await openSource(t, reference)).source, new FakeSourceRun());

    const world = await setUp(t);
    const first = new FakeSourceRun({ abortAtProgress: 12 });
    assert.deepEqual(await collect((await openSource(t, world)).source, first), []);
    assert.equal(requestsTo(world.musicbrainz.answered, '/ws/2/recording/'), 12);

    const second = new FakeSourceRun();
    const found = await collect((await openSource(t, world)).source, second);
    assert.deepEqual(found, expected);
    assert.equal(second.progressReports[0]?.done, 12, 'the resumed run starts where the first stopped');
    assert.equal(requestsTo(world.listenbrainz.received, CF), 1, 'the recommendations were fetched once');
    assert.equal(requestsTo(world.musicbrainz.answered, '/ws/2/recording/'), requestsTo(reference.musicbrainz.answered, '/ws/2/recording/'));
    assert.deepEqual(world.storage.snapshot(), {}, 'a completed run leaves no cursor');
  });

  it('after a kill -9 between batches, proposes the rest and nothing twice', async (t) => {
    const reference = await setUp(t, { listenBrainzUsers: max });
    const expected = await collect((await openSource(t, reference, { user: 'max' })).source, new FakeSourceRun());
    assert.ok(expected.length > 20, 'several batches');

    const world = await setUp(t, { listenBrainzUsers: max });
    const run = new FakeSourceRun();
    const before = await takeThenKill((await openSource(t, world, { user: 'max' })).source, run, 2);
    assert.equal(before.length, 20);
    const after = await collect((await openSource(t, world, { user: 'max' })).source, new FakeSourceRun({ known: before.map((candidate) => [candidate.mbid, 'queue'] as const) }));
    assert.deepEqual([...before, ...after].map((candidate) => candidate.mbid), expected.map((candidate) => candidate.mbid));
    assert.equal(requestsTo(world.musicbrainz.answered, '/ws/2/recording/'), requestsTo(reference.musicbrainz.answered, '/ws/2/recording/'));
  });

  it('makes one ListenBrainz request and no MusicBrainz request on a second run with a warm cache', async (t) => {
    const world = await setUp(t);
    await collect((await openSource(t, world)).source, new FakeSourceRun());
    const mbBefore = world.musicbrainz.answered.length;
    const again = await collect((await openSource(t, world)).source, new FakeSourceRun());
    assert.ok(again.length > 0);
    assert.equal(world.musicbrainz.answered.length, mbBefore);
    assert.equal(requestsTo(world.listenbrainz.received, CF), 2);
  });
});
