import { isRetryLaterError, type DiscoverySource } from '@crateflow/sdk';
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import recommendations from '../../../plugins/source-listenbrainz-recommendations/index.js';
import { DELETED_RECORDING, type FakeListenBrainzUser } from '../../fakes/listenbrainz-users.js';
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
    recommendations: rows.map((recording_mbid, index) => ({ recording_mbid, score: 4 - index * 0.5, latest_listened_at: null })),
  };
}

/**
 * Lookups of recordings MusicBrainz answered (found or not): a merged MBID's 301 and the lookup it leads to count as
 * one, and a "busy" 503 the client retried counts nothing.
 */
function recordingLookups(world: SourceWorld): number {
  return world.musicbrainz.answered.filter((answer) => answer.path.startsWith('/ws/2/recording/') && (answer.status === 200 || answer.status === 404)).length;
}

/** The catalogue's merged recording: the old MBID and the recording that absorbed it. */
function mergedRecording(catalogue: MusicBrainzCatalogue): { old: string; recording: MbRecording } {
  for (const [old, to] of catalogue.redirects) {
    const recording = catalogue.recordings.find((candidate) => candidate.id === to);
    if (recording) return { old, recording };
  }
  assert.fail('the catalogue has a merged recording');
}

/** The studio album a recording of the catalogue is on. */
function albumOf(catalogue: MusicBrainzCatalogue, recording: MbRecording) {
  return catalogue.releaseGroups.find((group) => recording.title.startsWith(`${group.title} (track`) && group.primaryType === 'Album' && group.secondaryTypes.length === 0);
}

/** A run that keeps what the source says about an empty result. */
class ExplainedRun extends FakeSourceRun {
  readonly explained: string[] = [];
  explain(text: string): void {
    this.explained.push(text);
  }
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
    const wanted = rob?.recommendations?.filter((item) => item.latest_listened_at === null && item.score >= 0).length;
    assert.equal(recordingLookups(world), wanted, 'one lookup per unheard recording scored 0 or more');
  });

  it('follows a merged recording to its album, counts it once beside the MBID that absorbed it, and skips a deleted one', async (t) => {
    const world = await setUp(t, {
      listenBrainzUsers: (catalogue) => {
        const { old, recording } = mergedRecording(catalogue);
        const other = recordingsOf(catalogue, 0)[0]?.id ?? '';
        const rows = [old, recording.id, DELETED_RECORDING, other];
        return [{ name: 'mia', token: 'mia-token', lastUpdated: 1_788_494_361,
          recommendations: rows.map((recording_mbid, index) => ({ recording_mbid, score: 3 - index * 0.5, latest_listened_at: null })) }];
      },
    });
    const { source } = await openSource(t, world, { user: 'mia' });
    const found = await collect(source, new FakeSourceRun());
    const { old, recording } = mergedRecording(world.catalogue);
    const merged = albumOf(world.catalogue, recording);
    assert.ok(merged, 'the merged recording is on a studio album');
    assert.deepEqual(found.map((candidate) => candidate.mbid), [merged.id, world.catalogue.releaseGroups[0]?.id]);
    assert.equal(found[0]?.reasons[0]?.text, 'recommended from your listening: 1 track', 'the old and the new MBID are one track');
    const statusOf = (id: string) => world.musicbrainz.answered.filter((answer) => answer.path === `/ws/2/recording/${id}` && answer.status !== 503).map((answer) => answer.status);
    assert.deepEqual(statusOf(old), [301]);
    assert.deepEqual(statusOf(DELETED_RECORDING), [404], 'the deleted recording was asked for once, and gave nothing');
  });

  it('proposes no album for recordings ListenBrainz scores below 0, and does not look them up', async (t) => {
    const world = await setUp(t, {
      listenBrainzUsers: (catalogue) => {
        const liked = recordingsOf(catalogue, 0)[0]?.id ?? '';
        const disliked = recordingsOf(catalogue, 1)[0]?.id ?? '';
        const row = (recording_mbid: string, score: number) => ({ recording_mbid, score, latest_listened_at: null });
        return [
          { name: 'neg', token: 'neg-token', lastUpdated: 1_788_494_361, recommendations: [row(liked, 1.25), row(disliked, -0.375)] },
          { name: 'gloom', token: 'gloom-token', lastUpdated: 1_788_494_361, recommendations: [row(disliked, -0.5), row(liked, -1.5)] },
        ];
      },
    });
    const found = await collect((await openSource(t, world, { user: 'neg' })).source, new FakeSourceRun());
    assert.deepEqual(found.map((candidate) => candidate.mbid), [world.catalogue.releaseGroups[0]?.id]);
    assert.equal(recordingLookups(world), 1);

    const run = new ExplainedRun();
    assert.deepEqual(await collect((await openSource(t, world, { user: 'gloom' })).source, run), []);
    assert.equal(recordingLookups(world), 1, 'no lookup for a list of negative scores');
    assert.match(run.explained.at(-1) ?? '', /all 2 ListenBrainz recommendations for gloom were already listened to or predicted below "no interest"/);
  });

  it('resumes after a shutdown midway at the next recording, repeating no request', async (t) => {
    const reference = await setUp(t);
    const expected = await collect((await openSource(t, reference)).source, new FakeSourceRun());

    const world = await setUp(t);
    const first = new FakeSourceRun({ abortAtProgress: 12 });
    assert.deepEqual(await collect((await openSource(t, world)).source, first), []);
    assert.equal(recordingLookups(world), 12);

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
