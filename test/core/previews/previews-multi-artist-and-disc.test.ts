import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import type { Previews } from '../../../core/previews/previews.schema.js';
import type { DeezerAlbum } from '../../fakes/deezer-catalogue.js';
import { startFakeDeezer, type FakeDeezer } from '../../fakes/fake-deezer.js';
import { api } from '../../helpers/api-client.js';
import { creditOf, startMetadataApp, type MetadataSetup } from '../metadata/metadata-test-app.js';

interface Setup extends MetadataSetup {
  readonly deezer: FakeDeezer;
}

/** Crateflow with the fake MusicBrainz and a fake Deezer (its own 50 per 5 s quota on) built from the same catalogue. */
async function start(t: TestContext): Promise<Setup> {
  const deezer = await startFakeDeezer();
  t.after(() => deezer.close());
  const setup = await startMetadataApp(t, { config: { previews: { type: 'deezer', url: deezer.url, preview_origins: [deezer.cdnUrl] } } });
  return { ...setup, deezer };
}

/** The MusicBrainz release group Deezer's album stands for: same title, and its lead artist first in the credit. */
function mbidOf(setup: Setup, album: DeezerAlbum): string {
  const group = setup.catalogue.releaseGroups.find((candidate) => candidate.title === album.title && candidate.credit[0]?.name === album.artist.name);
  assert.ok(group, `a release group for ${album.title}`);
  return group.id;
}

const licensed = (album: DeezerAlbum) => album.tracks.filter((track) => track.previewable);

describe('GET /api/v1/previews of multi-disc albums and collaborations (Deezer)', () => {
  it('lists a two-disc album by disc, with positions that never repeat and the disc of each track', async (t) => {
    const setup = await start(t);
    const album = setup.deezer.albums.find((candidate) => candidate.tracks.some((track) => track.disk === 2));
    assert.ok(album);
    const res = await api<Previews>(setup.app.baseUrl, 'GET', `/api/v1/previews?mbid=${mbidOf(setup, album)}`);
    assert.equal(res.status, 200);
    const positions = new Map(album.tracks.map((track, i) => [track.title, i + 1]));
    assert.deepEqual(res.body.tracks.map((track) => [track.disc, track.position, track.title]), licensed(album).map((track) => [track.disk, positions.get(track.title), track.title]));
    assert.ok(res.body.tracks.some((track) => track.disc === 2), 'the second disc is there, and the schema lets disc through');
  });

  it('finds a collaboration named by its mbid under the lead artist Deezer files it under, not the louder same-named album of a namesake', async (t) => {
    const setup = await start(t);
    const album = setup.deezer.albums.find((candidate) => candidate.contributors.length > 1);
    assert.ok(album);
    const group = setup.catalogue.releaseGroups.find((candidate) => candidate.id === mbidOf(setup, album));
    assert.ok(group && group.credit.length > 1);
    const res = await api<Previews>(setup.app.baseUrl, 'GET', `/api/v1/previews?mbid=${group.id}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.artist, creditOf(group), 'asked with the whole credit');
    assert.deepEqual(res.body.tracks.map((track) => track.link), licensed(album).map((track) => `https://www.deezer.com/track/${track.id}`));
  });

  it('answers 503 with Retry-After while other devices have spent the shared quota, remembers no empty answer, and 200 with the tracks after', async (t) => {
    const setup = await start(t);
    const album = setup.deezer.albums.find((candidate) => candidate.tracks.some((track) => track.disk === 2));
    assert.ok(album);
    const path = `/api/v1/previews?artist=${encodeURIComponent(album.artist.name)}&album=${encodeURIComponent(album.title)}`;
    setup.deezer.spendQuotaElsewhere(2);
    for (let i = 0; i < 2; i++) {
      const refused = await api<{ type: string; retry_after_s?: number }>(setup.app.baseUrl, 'GET', path);
      assert.deepEqual([refused.status, refused.headers.get('retry-after'), refused.body.retry_after_s], [503, '2', 2]);
      assert.match(refused.body.type, /previews-unavailable/);
    }
    const res = await api<Previews>(setup.app.baseUrl, 'GET', path);
    assert.equal(res.status, 200);
    assert.equal(res.body.tracks.length, licensed(album).length);
  });
});
