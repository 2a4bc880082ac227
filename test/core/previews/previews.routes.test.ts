import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import type { Previews } from '../../../core/previews/previews.schema.js';
import { startFakeDeezer, type FakeDeezer, type FakeDeezerOptions } from '../../fakes/fake-deezer.js';
import type { DeezerAlbum } from '../../fakes/deezer-catalogue.js';
import type { MbReleaseGroup } from '../../fakes/musicbrainz-catalogue.js';
import { api } from '../../helpers/api-client.js';
import { startApp } from '../../helpers/start-app.js';
import { creditOf, startMetadataApp, type MetadataSetup, type MetadataSetupOptions } from '../metadata/metadata-test-app.js';

interface Problem {
  type: string;
  status: number;
  detail?: string;
  config_key?: string;
  retry_after_s?: number;
  errors?: { path: string; message: string }[];
}

interface Setup extends MetadataSetup {
  readonly deezer: FakeDeezer;
}

/** Crateflow with the fake MusicBrainz and a fake Deezer (and its CDN) built from the same catalogue. */
async function start(t: TestContext, deezerOptions: FakeDeezerOptions = { quota: false }, options: MetadataSetupOptions = {}): Promise<Setup> {
  // The fakes' catalogues are generated from the same default seed, so Deezer has an album per MusicBrainz group.
  const deezer = await startFakeDeezer(deezerOptions);
  t.after(() => deezer.close());
  const setup = await startMetadataApp(t, { ...options, config: { previews: { type: 'deezer', url: deezer.url, preview_origins: [deezer.cdnUrl] }, ...options.config } });
  return { ...setup, deezer };
}

function groupOf(setup: Setup, album: DeezerAlbum): MbReleaseGroup {
  const group = setup.catalogue.releaseGroups.find((candidate) => candidate.title === album.title && creditOf(candidate) === album.artist.name);
  assert.ok(group, `a release group for ${album.title}`);
  return group;
}

/** The n-th Deezer album whose title has no `"` (which ends a Deezer search phrase, so the plugin leaves it out). */
function plainAlbum(setup: Setup, n: number): DeezerAlbum {
  const album = setup.deezer.albums.filter((candidate) => !candidate.title.includes('"') && candidate.artist.name !== 'Tribute Ensemble')[n];
  assert.ok(album);
  return album;
}

const licensedTitles = (album: DeezerAlbum) => album.tracks.filter((track) => track.previewable).map((track) => track.title);

describe('GET /api/v1/previews', () => {
  it('answers the previews of an album named by mbid, found on Deezer under the artist and title MusicBrainz gives, playable from the CDN', async (t) => {
    const setup = await start(t);
    const album = setup.deezer.albums[0];
    assert.ok(album);
    const group = groupOf(setup, album);
    const res = await api<Previews>(setup.app.baseUrl, 'GET', `/api/v1/previews?mbid=${group.id.toUpperCase()}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([res.body.artist, res.body.album, res.body.mbid, res.body.source], [album.artist.name, album.title, group.id, 'preview-deezer']);
    assert.deepEqual(res.body.tracks.map((track) => track.title), licensedTitles(album));
    assert.ok(res.body.tracks.every((track) => track.preview_url.startsWith(`${setup.deezer.cdnUrl}/`) && track.source === 'deezer'));
    const mp3 = await fetch(res.body.tracks[0]?.preview_url ?? '');
    assert.equal(mp3.status, 200);
    assert.equal(mp3.headers.get('content-type'), 'audio/mpeg');
  });

  it('answers an album asked again, by mbid or by names, from memory without asking Deezer', async (t) => {
    const setup = await start(t);
    const album = plainAlbum(setup, 1);
    assert.ok(album);
    const group = groupOf(setup, album);
    const first = await api<Previews>(setup.app.baseUrl, 'GET', `/api/v1/previews?mbid=${group.id}`);
    assert.equal(first.status, 200);
    const asked = setup.deezer.received.length;
    assert.ok(asked >= 2, 'the first ask searched and fetched the tracks');
    const again = await api<Previews>(setup.app.baseUrl, 'GET', `/api/v1/previews?mbid=${group.id}`);
    const byNames = await api<Previews>(setup.app.baseUrl, 'GET', `/api/v1/previews?artist=${encodeURIComponent(album.artist.name)}&album=${encodeURIComponent(album.title)}`);
    assert.deepEqual([again.status, byNames.status], [200, 200]);
    assert.deepEqual(again.body.tracks, first.body.tracks);
    assert.deepEqual(byNames.body.tracks, first.body.tracks);
    assert.equal(setup.deezer.received.length, asked, 'no second request to Deezer');
  });

  it('answers 503 problem+json with Retry-After when Deezer says its quota is exceeded, and remembers nothing', async (t) => {
    const setup = await start(t, { quota: 1 });
    const album = plainAlbum(setup, 2);
    assert.ok(album);
    const path = `/api/v1/previews?artist=${encodeURIComponent(album.artist.name)}&album=${encodeURIComponent(album.title)}`;
    const res = await api<Problem>(setup.app.baseUrl, 'GET', path);
    assert.equal(res.status, 503);
    assert.equal(res.headers.get('content-type'), 'application/problem+json');
    assert.equal(res.headers.get('retry-after'), '2');
    assert.match(res.body.type, /previews-unavailable/);
    assert.equal(res.body.retry_after_s, 2);
    assert.doesNotMatch(JSON.stringify(res.body), /127\.0\.0\.1|stack/, 'no address or stack trace reaches the client');
    const asked = setup.deezer.received.length;
    await api<Problem>(setup.app.baseUrl, 'GET', path);
    assert.ok(setup.deezer.received.length > asked, 'a failure is not remembered: the next ask tries Deezer again');
  });

  it('answers 200 with no tracks for an album Deezer does not have', async (t) => {
    const setup = await start(t);
    const res = await api<Previews>(setup.app.baseUrl, 'GET', '/api/v1/previews?artist=Nobody%20Plays%20Here&album=Never%20Made');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { artist: 'Nobody Plays Here', album: 'Never Made', source: 'preview-deezer', tracks: [] });
  });

  it('answers 400 naming the field when the album is not named, half named or the mbid is malformed', async (t) => {
    const setup = await start(t);
    const cases: [string, string][] = [['', 'query.mbid'], ['?artist=Low', 'query.album'], ['?album=Secret%20Name', 'query.artist']];
    for (const [query, field] of cases) {
      const res = await api<Problem>(setup.app.baseUrl, 'GET', `/api/v1/previews${query}`);
      assert.equal(res.status, 400, query);
      assert.deepEqual(res.body.errors?.map((error) => error.path), [field], query);
    }
    const malformed = await api<Problem>(setup.app.baseUrl, 'GET', '/api/v1/previews?mbid=not-an-mbid');
    assert.equal(malformed.status, 400);
    assert.match(JSON.stringify(malformed.body.errors), /mbid/);
    assert.equal(setup.deezer.received.length, 0, 'bad input never reaches Deezer');
  });

  it('answers 404 for an mbid MusicBrainz does not know', async (t) => {
    const setup = await start(t);
    const res = await api<Problem>(setup.app.baseUrl, 'GET', '/api/v1/previews?mbid=00000000-0000-4000-a000-000000000000');
    assert.equal(res.status, 404);
    assert.equal(setup.deezer.received.length, 0);
  });

  it('names an album by the queue item with that mbid without MusicBrainz, and asks MusicBrainz (no metadata.contact needed) for one it does not hold', async (t) => {
    const setup = await start(t, { quota: false }, { withoutContact: true });
    const album = plainAlbum(setup, 3);
    assert.ok(album);
    const group = groupOf(setup, album);
    const added = await api(setup.app.baseUrl, 'POST', '/api/v1/queue', { artist: album.artist.name, album: album.title, mbid: group.id });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    const res = await api<Previews>(setup.app.baseUrl, 'GET', `/api/v1/previews?mbid=${group.id}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.tracks.map((track) => track.title), licensedTitles(album));
    assert.equal(setup.musicbrainz.answered.length, 0, 'MusicBrainz was not asked');
    const other = groupOf(setup, plainAlbum(setup, 4));
    const unnamed = await api<Previews>(setup.app.baseUrl, 'GET', `/api/v1/previews?mbid=${other.id}`);
    assert.equal(unnamed.status, 200, JSON.stringify(unnamed.body));
    assert.deepEqual(setup.musicbrainz.answered.map((answer) => answer.path), [`/ws/2/release-group/${other.id}`]);
  });

  it('answers 503 naming previews.type when previews are switched off', async (t) => {
    const app = await startApp({ config: { previews: { type: 'none' } } });
    t.after(() => app.close());
    const res = await api<Problem>(app.baseUrl, 'GET', '/api/v1/previews?artist=Low&album=Secret%20Name');
    assert.equal(res.status, 503);
    assert.equal(res.body.config_key, 'previews.type');
    assert.equal(res.headers.get('retry-after'), null, 'nothing to wait for');
  });

  it('is open to the viewer role', async (t) => {
    const deezer = await startFakeDeezer({ quota: false });
    t.after(() => deezer.close());
    const key = 'viewer-key-0123456789abcdef';
    const app = await startApp({
      config: {
        previews: { url: deezer.url, preview_origins: [deezer.cdnUrl] },
        ui: { auth: { enabled: true, type: 'basic', username: 'admin', password: 'correct horse battery', api_keys: [{ name: 'kiosk', key, role: 'viewer' }] } },
      },
    });
    t.after(() => app.close());
    const anonymous = await api<Problem>(app.baseUrl, 'GET', '/api/v1/previews?artist=Low&album=Secret%20Name');
    assert.equal(anonymous.status, 401);
    const viewer = await api<Previews>(app.baseUrl, 'GET', '/api/v1/previews?artist=Low&album=Secret%20Name', undefined, { 'x-api-key': key });
    assert.equal(viewer.status, 200);
  });
});
