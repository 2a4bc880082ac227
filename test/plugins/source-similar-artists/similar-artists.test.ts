import { isCredentialsError, isRecord, isRetryLaterError, type DiscoverySource, type KnownAs } from '@crateflow/sdk';
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import similarArtists from '../../../plugins/source-similar-artists/index.js';
import { STALE_ARTIST_MBID } from '../../fakes/fake-lastfm.js';
import type { MbArtist, MusicBrainzCatalogue } from '../../fakes/musicbrainz-catalogue.js';
import { createPluginTestContext } from '../../helpers/plugin-test-context.js';
import { collect, FakeSourceRun } from '../source-shared/fake-source-run.js';
import { requestsTo, startSourceWorld, type SourceWorld } from '../source-shared/source-world.js';

const LABS = '/similar-artists/json';

function artist(catalogue: MusicBrainzCatalogue, index: number): MbArtist {
  const found = catalogue.artists[index];
  assert.ok(found, `catalogue artist ${index}`);
  return found;
}

/**
 * Seeds A0, A1, A2 (owned). A4 is similar to all three, A3 to two (strongly to A0), A6 to one, A5 only to A0 — whose
 * name a namesake shares, so A5 appears only if the right "A0" was picked.
 */
function table(catalogue: MusicBrainzCatalogue) {
  const id = (index: number) => artist(catalogue, index).id;
  return new Map([
    [id(0), [{ mbid: id(3), score: 9000 }, { mbid: id(4), score: 8000 }, { mbid: id(5), score: 3000 }]],
    [id(1), [{ mbid: id(4), score: 5000 }, { mbid: id(6), score: 4000 }]],
    [id(2), [{ mbid: id(4), score: 7000 }, { mbid: id(3), score: 1000 }]],
  ]);
}

/** The library: artists A0–A2 and, by name, their first two studio albums (what resolves namesakes). */
function library(catalogue: MusicBrainzCatalogue) {
  const owned = [0, 1, 2].map((index) => artist(catalogue, index));
  const albums = owned.flatMap((who) => catalogue.releaseGroupsOf(who.id)
    .filter((group) => group.primaryType === 'Album' && group.secondaryTypes.length === 0 && group.credit.length === 1).slice(0, 2)
    .map((group) => [who.name, group.title, 'library'] as const));
  return { artists: owned.map((who, index) => ({ name: who.name, albums: 10 - index })), knownByName: albums };
}

async function openSource(t: TestContext, world: SourceWorld, config: Record<string, unknown> = {}) {
  const musicbrainz = await world.openMusicBrainz();
  const harness = createPluginTestContext(similarArtists, {
    listenbrainz_url: world.listenbrainz.url, listenbrainz_labs_url: world.listenbrainz.labsUrl, lastfm_url: `${world.lastfm.url}/2.0/`, ...config,
  }, { musicbrainz, storage: world.storage });
  t.after(() => harness.close());
  const source: DiscoverySource = await similarArtists.create(harness.context);
  return { source, log: harness.context.log };
}

function libraryRun(world: SourceWorld, extra: { known?: [string, KnownAs][]; abortAtProgress?: number } = {}) {
  return new FakeSourceRun({ ...library(world.catalogue), ...extra });
}

function studioAlbumsOf(catalogue: MusicBrainzCatalogue, who: MbArtist): string[] {
  return catalogue.releaseGroupsOf(who.id).filter((group) => group.primaryType === 'Album' && group.secondaryTypes.length === 0).map((group) => group.id);
}

describe('source-similar-artists', () => {
  it('ranks the artist similar to the most owned artists first and names its top seeds with (+N)', async (t) => {
    const world = await startSourceWorld(t, { similarity: table });
    const { source } = await openSource(t, world, { albums_per_artist: 1 });
    const found = await collect(source, libraryRun(world));
    const artists = found.map((candidate) => world.catalogue.releaseGroup(candidate.mbid)?.credit.map((part) => part.artist.id));
    assert.deepEqual(artists.map((ids) => ids?.[0] === undefined ? undefined : world.catalogue.artists.findIndex((who) => ids.includes(who.id))), [4, 3, 6, 5]);
    const [a1, a2] = [artist(world.catalogue, 1).name, artist(world.catalogue, 2).name].sort((x, y) => x.localeCompare(y));
    assert.equal(found[0]?.reasons[0]?.text, `similar to ${a1}, ${a2} (+1)`);
    assert.equal(found[0]?.reasons[0]?.kind, 'similar-artists');
    assert.equal(found[0]?.reasons[0]?.refs.length, 3);
    assert.equal(found[0]?.score, 1);
    assert.ok(found.every((candidate, index) => index === 0 || candidate.score <= (found[index - 1]?.score ?? 1)));
    assert.equal(found[3]?.reasons[0]?.text, `similar to ${artist(world.catalogue, 0).name}`, 'the right "A0" among namesakes was the seed');
  });

  it('never proposes a known album, and proposes studio albums only', async (t) => {
    const world = await startSourceWorld(t, { similarity: table });
    const { source } = await openSource(t, world);
    const firstOfA4 = studioAlbumsOf(world.catalogue, artist(world.catalogue, 4))[0] ?? '';
    const found = await collect(source, libraryRun(world, { known: [[firstOfA4, 'rejected']] }));
    assert.ok(found.length >= 6);
    assert.ok(!found.some((candidate) => candidate.mbid === firstOfA4));
    assert.equal(new Set(found.map((candidate) => candidate.mbid)).size, found.length, 'no duplicates within a run');
    for (const candidate of found) {
      const group = world.catalogue.releaseGroup(candidate.mbid);
      assert.deepEqual([group?.primaryType, group?.secondaryTypes], ['Album', []]);
    }
  });

  it('proposes a collaboration under its whole credit ("A & B"), the seeds only in the reason', async (t) => {
    const world = await startSourceWorld(t, { similarity: table });
    const { source } = await openSource(t, world, { albums_per_artist: 20 });
    const found = await collect(source, libraryRun(world));
    const collaborations = found.filter((candidate) => (world.catalogue.releaseGroup(candidate.mbid)?.credit.length ?? 0) > 1);
    assert.ok(collaborations.length > 0, 'the similar artists have collaborations');
    for (const candidate of found) {
      const credit = world.catalogue.releaseGroup(candidate.mbid)?.credit ?? [];
      assert.equal(candidate.artist, credit.map((part) => part.name + part.joinphrase).join(''), `${candidate.album} keeps its whole credit`);
    }
    const seeds = new Set([0, 1, 2].map((index) => artist(world.catalogue, index).id));
    assert.ok(collaborations.every((candidate) => candidate.reasons[0]?.refs.every((ref) => ref.mbid !== undefined && seeds.has(ref.mbid))), 'the refs name the seeds');
  });

  it('counts known albums toward albums_per_artist: a second run adds no next album of an artist whose first is known', async (t) => {
    const world = await startSourceWorld(t, { similarity: table });
    const first = await collect((await openSource(t, world, { albums_per_artist: 1 })).source, libraryRun(world));
    assert.equal(first.length, 4, 'one album of each similar artist');
    const again = await collect((await openSource(t, world, { albums_per_artist: 1 })).source,
      libraryRun(world, { known: first.map((candidate): [string, KnownAs] => [candidate.mbid, 'queue']) }));
    assert.deepEqual(again.map((candidate) => `${candidate.artist} — ${candidate.album}`), []);


    // The same with the first album of the best-ranked artist owned, filed by name under that artist.
    const [top, ...others] = first;
    assert.ok(top);
    const owned = new FakeSourceRun({ ...library(world.catalogue), knownByName: [...library(world.catalogue).knownByName, [artist(world.catalogue, 4).name, top.album ?? '', 'library'] as const] });
    const fresh = await startSourceWorld(t, { similarity: table });
    const withOwned = await collect((await openSource(t, fresh, { albums_per_artist: 1 })).source, owned);
    assert.deepEqual(withOwned.map((candidate) => candidate.mbid), others.map((candidate) => candidate.mbid), 'no later album of the artist whose first is owned');
  });

  it('seeds from ListenBrainz top artists, and a 204 there is a clean run with nothing', async (t) => {
    const world = await startSourceWorld(t, { similarity: table });
    const { source } = await openSource(t, world, { seeds: 'listenbrainz', user: 'rob', max_seeds: 3, albums_per_artist: 1 });
    const found = await collect(source, new FakeSourceRun());
    assert.ok(found.length > 0);
    assert.deepEqual(found[0]?.reasons[0]?.refs.at(-1), { type: 'user', name: 'rob' });
    assert.equal(world.musicbrainz.requestsTo('/ws/2/artist'), 0, 'top artists come with MBIDs: no name search');

    const { source: newbie } = await openSource(t, world, { seeds: 'listenbrainz', user: 'newbie' });
    const run = new FakeSourceRun();
    assert.deepEqual(await collect(newbie, run), []);
    assert.deepEqual(run.progressReports, [{ done: 0, total: 0 }]);
  });

  it('asks Last.fm when an api_key is set: unknown artists and empty mbids cost nothing, the key stays out of logs', async (t) => {
    const world = await startSourceWorld(t, { similarity: () => new Map() });
    const { source, log } = await openSource(t, world, { api_key: world.lastfm.apiKey, similar_per_seed: 100, albums_per_artist: 1 });
    const seed = artist(world.catalogue, 1);
    const run = new FakeSourceRun({ artists: [{ name: seed.name, albums: 3 }, { name: 'Nobody Anyone Knows', albums: 1 }] });
    const found = await collect(source, run);
    const sent = world.lastfm.received.map((request) => request.query);
    assert.equal(sent.length, 2);
    assert.ok(sent.every((query) => query.get('autocorrect') === '1' && query.get('format') === 'json'));
    // The fake's list: every other artist (A0 twice: it and its namesake share a name), a tribute band with mbid "", a project with none.
    const proposedArtists = new Set(found.map((candidate) => world.catalogue.releaseGroup(candidate.mbid)?.credit[0]?.artist.id));
    assert.ok(proposedArtists.has(artist(world.catalogue, 2).id));
    assert.ok(!found.some((candidate) => candidate.artist.includes('Tribute')));
    assert.equal(found[0]?.reasons[0]?.text, `similar to ${seed.name}`);
    assert.ok(!JSON.stringify(log.entries).includes(world.lastfm.apiKey));
  });

  it('finds a Last.fm artist by name when its mbid is empty, missing or unknown to MusicBrainz, and follows a merged one', async (t) => {
    const world = await startSourceWorld(t, { similarity: () => new Map() });
    const { source, log } = await openSource(t, world, { api_key: world.lastfm.apiKey, similar_per_seed: 100, albums_per_artist: 1 });
    const seed = artist(world.catalogue, 1);
    const found = await collect(source, new FakeSourceRun({ artists: [{ name: seed.name, albums: 3 }] }));
    // The fake's list for this seed: A0 under the MBID MusicBrainz merged into it, A2 with "", A3 without one, A4 with
    // an MBID MusicBrainz answers 404 for, the others with theirs (fake-lastfm.ts).
    const rows = await lastFmRows(world, seed.name);
    assert.deepEqual(rows.slice(0, 4).map((row) => [row.name, row.mbid]), [
      [artist(world.catalogue, 0).name, [...world.catalogue.redirects].find(([, to]) => to === artist(world.catalogue, 0).id)?.[0]],
      [artist(world.catalogue, 2).name, ''],
      [artist(world.catalogue, 3).name, undefined],
      [artist(world.catalogue, 4).name, STALE_ARTIST_MBID],
    ]);
    const proposed = new Set(found.map((candidate) => world.catalogue.releaseGroup(candidate.mbid)?.credit[0]?.artist.id));
    for (const index of [0, 2, 3, 4, 5]) assert.ok(proposed.has(artist(world.catalogue, index).id), `an album of A${index}`);
    assert.ok(log.entries.some((entry) => entry.msg.includes('does not know a similar artist\'s MBID')), 'the stale MBID is logged');
  });

  it('passes Last.fm error 29 on as RetryLaterError and a refused key as CredentialsError naming api_key', async (t) => {
    const world = await startSourceWorld(t, { similarity: () => new Map() });
    world.lastfm.failNext(1, 29);
    const busy = await openSource(t, world, { api_key: world.lastfm.apiKey });
    await assert.rejects(collect(busy.source, libraryRun(world)), (err: unknown) => isRetryLaterError(err));
    const wrong = await openSource(t, world, { api_key: 'ffffffffffffffffffffffffffffffff', cache_days: 0 });
    await assert.rejects(collect(wrong.source, libraryRun(world)), (err: unknown) => isCredentialsError(err) && /api_key/.test(err.message) && !err.message.includes('ffff'));
  });

  it('names the algorithm key when Labs refuses the request with its HTML 400', async (t) => {
    const world = await startSourceWorld(t, { similarity: table });
    const { source } = await openSource(t, world, { algorithm: 'no_such_algorithm' });
    await assert.rejects(collect(source, libraryRun(world)), /check config key algorithm/);
  });

  it('passes a Labs outage on a seed (500 with {}) on as RetryLaterError, and the next run picks up at that seed', async (t) => {
    const reference = await startSourceWorld(t, { similarity: table });
    const expected = await collect((await openSource(t, reference)).source, libraryRun(reference));

    const second = reference.listenbrainz.received.filter((request) => request.path === LABS)[1]?.query.get('artist_mbids');
    assert.ok(second, 'the reference run asked Labs for a second seed');
    const failing = new Set([second]);
    const world = await startSourceWorld(t, { similarity: table, listenbrainz: { similarityFailsFor: failing } });
    await assert.rejects(collect((await openSource(t, world)).source, libraryRun(world)), (err: unknown) => isRetryLaterError(err) && /\(500\)/.test(err.message));
    assert.equal(requestsTo(world.listenbrainz.received, LABS), 2, 'the first seed, then the failing one');
    failing.clear();
    assert.deepEqual(await collect((await openSource(t, world)).source, libraryRun(world)), expected);
    assert.equal(requestsTo(world.listenbrainz.received, LABS), 4, 'the first seed is not asked again');
  });

  it('resumes after a shutdown midway at the next seed, repeating no request', async (t) => {
    const reference = await startSourceWorld(t, { similarity: table });
    const expected = await collect((await openSource(t, reference)).source, libraryRun(reference));

    const world = await startSourceWorld(t, { similarity: table });
    assert.deepEqual(await collect((await openSource(t, world)).source, libraryRun(world, { abortAtProgress: 2 })), []);
    assert.equal(requestsTo(world.listenbrainz.received, LABS), 2);
    const found = await collect((await openSource(t, world)).source, libraryRun(world));
    assert.deepEqual(found, expected);
    assert.equal(requestsTo(world.listenbrainz.received, LABS), 3);
    assert.equal(world.musicbrainz.answered.length, reference.musicbrainz.answered.length, 'no MusicBrainz request twice');
    assert.equal(world.storage.get('run'), undefined, 'a completed run leaves no cursor');
  });

  it('makes no request at all on a second run with a warm cache', async (t) => {
    const world = await startSourceWorld(t, { similarity: table });
    const first = await collect((await openSource(t, world)).source, libraryRun(world));
    const [mb, lb] = [world.musicbrainz.answered.length, world.listenbrainz.received.length];
    const second = await collect((await openSource(t, world)).source, libraryRun(world));
    assert.deepEqual(second, first);
    assert.deepEqual([world.musicbrainz.answered.length, world.listenbrainz.received.length], [mb, lb]);
  });
});

/** The rows Last.fm's artist.getSimilar answers for `name`, as the fake sends them. */
async function lastFmRows(world: SourceWorld, name: string): Promise<{ name: unknown; mbid: unknown }[]> {
  const url = new URL(`${world.lastfm.url}/2.0/`);
  for (const [key, value] of Object.entries({ method: 'artist.getSimilar', artist: name, limit: '100', api_key: world.lastfm.apiKey, format: 'json' })) url.searchParams.set(key, value);
  const body: unknown = await (await fetch(url)).json();
  const list = isRecord(body) && isRecord(body['similarartists']) ? body['similarartists']['artist'] : undefined;
  return (Array.isArray(list) ? list : []).filter(isRecord).map((row) => ({ name: row['name'], mbid: row['mbid'] }));
}
