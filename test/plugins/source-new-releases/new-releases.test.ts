import type { DiscoverySource } from '@crateflow/sdk';
import { ManualClock } from '@crateflow/sdk/testing';
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import newReleases from '../../../plugins/source-new-releases/index.js';
import type { MbReleaseGroup, MusicBrainzCatalogue } from '../../fakes/musicbrainz-catalogue.js';
import { createPluginTestContext } from '../../helpers/plugin-test-context.js';
import { collect, FakeSourceRun } from '../source-shared/fake-source-run.js';
import { startSourceWorld, type SourceWorld } from '../source-shared/source-world.js';

const DAY = 24 * 60 * 60 * 1000;
/** The generated catalogue's newest dated studio albums are from this year; "now" is its last day. */
const LATEST = 2019;
const NOW = Date.parse(`${LATEST}-12-31T12:00:00.000Z`);

/** The rule as the README states it: a date is compared at its own precision; undated never counts. */
function within(date: string, since: string, until = new Date(NOW).toISOString().slice(0, 10)): boolean {
  return date !== '' && date >= since.slice(0, date.length) && date <= until.slice(0, date.length);
}

async function openSource(t: TestContext, world: SourceWorld, config: Record<string, unknown> = {}) {
  const musicbrainz = await world.openMusicBrainz();
  const harness = createPluginTestContext(newReleases, config, { musicbrainz, storage: world.storage, clock: new ManualClock(NOW) });
  t.after(() => harness.close());
  const source: DiscoverySource = await newReleases.create(harness.context);
  return source;
}

/** Library: artists A0 (who has a namesake), A1, A2, A3, with two of A0's old albums owned by name. */
function libraryRun(catalogue: MusicBrainzCatalogue, options: { lastCompletedAt?: string; abortAtProgress?: number; known?: [string, 'rejected'][] } = {}) {
  const owned = catalogue.artists.slice(0, 4);
  const a0 = owned[0];
  const oldAlbums = catalogue.releaseGroupsOf(a0?.id ?? '').filter((group) => group.primaryType === 'Album' && group.secondaryTypes.length === 0).slice(0, 2);
  return new FakeSourceRun({
    artists: owned.map((artist, index) => ({ name: artist.name, albums: 8 - index })),
    knownByName: oldAlbums.map((group) => [a0?.name ?? '', group.title, 'library'] as const),
    ...options,
  });
}

function studioAlbumsOfLibrary(catalogue: MusicBrainzCatalogue): MbReleaseGroup[] {
  const ids = new Set(catalogue.artists.slice(0, 4).map((artist) => artist.id));
  return catalogue.releaseGroups.filter((group) => group.credit.some((part) => ids.has(part.artist.id)) && group.primaryType === 'Album' && group.secondaryTypes.length === 0);
}

describe('source-new-releases', () => {
  it('proposes studio albums by library artists first released within the first-run window, skipping undated ones', async (t) => {
    const world = await startSourceWorld(t);
    const source = await openSource(t, world, { first_run_days: 730 });
    const found = await collect(source, libraryRun(world.catalogue));
    const since = new Date(NOW - 730 * DAY).toISOString().slice(0, 10);
    const expected = studioAlbumsOfLibrary(world.catalogue).filter((group) => within(group.firstReleaseDate, since)).map((group) => group.id).sort();
    assert.ok(expected.length >= 2, 'the catalogue has new albums to find');
    assert.deepEqual(found.map((candidate) => candidate.mbid).sort(), expected);
    for (const candidate of found) {
      const group = world.catalogue.releaseGroup(candidate.mbid);
      assert.equal(candidate.reasons[0]?.text, `new album by ${candidate.reasons[0]?.refs[0]?.name}, ${group?.firstReleaseDate}`);
      assert.equal(candidate.reasons[0]?.kind, 'new-release');
    }
  });

  it('proposes a collaboration under its whole credit ("A & B"), naming the library artist it was found under only as the seed', async (t) => {
    const world = await startSourceWorld(t);
    const source = await openSource(t, world, { first_run_days: 730 });
    const found = await collect(source, libraryRun(world.catalogue));
    const collaborations = found.filter((candidate) => (world.catalogue.releaseGroup(candidate.mbid)?.credit.length ?? 0) > 1);
    assert.ok(collaborations.length > 0, 'the window holds a collaboration of two library artists');
    for (const candidate of found) {
      const credit = world.catalogue.releaseGroup(candidate.mbid)?.credit ?? [];
      assert.equal(candidate.artist, credit.map((part) => part.name + part.joinphrase).join(''), `${candidate.album} keeps its whole credit`);
      const seed = candidate.reasons[0]?.refs[0];
      assert.ok(seed && credit.some((part) => part.artist.id === seed.mbid && part.name === seed.name), 'the seed is one of the credited artists');
    }
    assert.match(collaborations[0]?.artist ?? '', / & /);
  });

  it('with secondary types included, proposes compilations and live albums but never an undated album', async (t) => {
    const world = await startSourceWorld(t);
    const source = await openSource(t, world, { first_run_days: 3650, include_secondary_types: true });
    const found = await collect(source, libraryRun(world.catalogue));
    const groups = found.map((candidate) => world.catalogue.releaseGroup(candidate.mbid));
    assert.ok(groups.some((group) => (group?.secondaryTypes.length ?? 0) > 0));
    assert.ok(groups.every((group) => group?.primaryType === 'Album' && group.firstReleaseDate !== ''));
    const ids = new Set(world.catalogue.artists.slice(0, 4).map((artist) => artist.id));
    const undated = world.catalogue.releaseGroups.filter((group) => group.primaryType === 'Album' && group.firstReleaseDate === '' && group.credit.some((part) => ids.has(part.artist.id)));
    assert.ok(undated.length > 0, 'the library artists have undated albums to skip');
  });

  it('looks from the last completed run (less the overlap) and never proposes a known album', async (t) => {
    const world = await startSourceWorld(t);
    const source = await openSource(t, world, { overlap_days: 0 });
    const candidates = studioAlbumsOfLibrary(world.catalogue).filter((group) => within(group.firstReleaseDate, `${LATEST - 1}-06-01`));
    assert.ok(candidates.length >= 2);
    const rejected = candidates[0]?.id ?? '';
    const found = await collect(source, libraryRun(world.catalogue, { lastCompletedAt: `${LATEST - 1}-06-01T00:00:00.000Z`, known: [[rejected, 'rejected']] }));
    assert.deepEqual(found.map((candidate) => candidate.mbid).sort(), candidates.slice(1).map((group) => group.id).sort());
  });

  it('resumes after a shutdown midway at the next artist, repeating no request, and a warm second run makes none', async (t) => {
    const reference = await startSourceWorld(t);
    const expected = await collect(await openSource(t, reference, { first_run_days: 730 }), libraryRun(reference.catalogue));

    const world = await startSourceWorld(t);
    const first = await collect(await openSource(t, world, { first_run_days: 730 }), libraryRun(world.catalogue, { abortAtProgress: 2 }));
    const rest = await collect(await openSource(t, world, { first_run_days: 730 }), libraryRun(world.catalogue));
    assert.deepEqual([...first, ...rest].map((candidate) => candidate.mbid).sort(), expected.map((candidate) => candidate.mbid).sort());
    assert.equal(world.musicbrainz.answered.length, reference.musicbrainz.answered.length, 'no MusicBrainz request twice');
    assert.equal(world.storage.get('run'), undefined);

    const before = world.musicbrainz.answered.length;
    const again = await collect(await openSource(t, world, { first_run_days: 730 }), libraryRun(world.catalogue));
    assert.equal(again.length, expected.length);
    assert.equal(world.musicbrainz.answered.length, before, 'names from storage, browses from the disk cache');
  });
});
