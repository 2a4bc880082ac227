import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ReleaseGroupDetail } from '../../../core/release-groups/release-group-detail.schema.js';
import { api } from '../../helpers/api-client.js';
import { creditOf, startMetadataApp, yearOf } from '../metadata/metadata-test-app.js';

interface Problem {
  type: string;
  status: number;
  config_key?: string;
  errors?: { path: string; message: string }[];
}

describe('GET /api/v1/release-groups/{mbid}', () => {
  it('answers the album with the tracks of its earliest official release and research links', async (t) => {
    const { app, album } = await startMetadataApp(t);
    const res = await api<ReleaseGroupDetail>(app.baseUrl, 'GET', `/api/v1/release-groups/${album.id}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const official = album.releases.filter((release) => release.status === 'Official').sort((a, b) => a.id.localeCompare(b.id));
    const artist = creditOf(album);
    assert.deepEqual(res.body, {
      mbid: album.id, title: album.title, artist, year: yearOf(album), primary_type: 'Album', secondary_types: [],
      release_mbid: official[0]?.id,
      // The fake's second track has no known length (null), which the answer leaves out.
      tracks: [{ position: 1, title: `${album.title} (track 1)`, length_s: 180 }, { position: 2, title: `${album.title} (track 2)` }],
      links: {
        musicbrainz: `https://musicbrainz.org/release-group/${album.id}`,
        listenbrainz: `https://listenbrainz.org/album/${album.id}/`,
        lastfm: `https://www.last.fm/music/${encodeURIComponent(artist).replace(/%20/g, '+')}/${encodeURIComponent(album.title).replace(/%20/g, '+')}`,
        bandcamp_search: `https://bandcamp.com/search?q=${encodeURIComponent(`${artist} ${album.title}`).replace(/%20/g, '+')}&item_type=a`,
      },
    });
  });

  it('costs three MusicBrainz requests the first time and none the second (the shared disk cache)', async (t) => {
    const { app, album, musicbrainz } = await startMetadataApp(t);
    await api(app.baseUrl, 'GET', `/api/v1/release-groups/${album.id}`);
    const paths = musicbrainz.answered.map((request) => request.path);
    assert.equal(paths.length, 3);
    assert.deepEqual(paths.slice(0, 2), [`/ws/2/release-group/${album.id}`, '/ws/2/release']);
    assert.match(paths[2] ?? '', /^\/ws\/2\/release\/[0-9a-f-]{36}$/);
    const again = await api<ReleaseGroupDetail>(app.baseUrl, 'GET', `/api/v1/release-groups/${album.id}`);
    assert.equal(again.status, 200);
    assert.equal(musicbrainz.answered.length, 3);
  });

  it('answers 404 for an mbid MusicBrainz does not know and 400 naming the mbid when it is malformed', async (t) => {
    const { app } = await startMetadataApp(t);
    const unknown = await api<Problem>(app.baseUrl, 'GET', '/api/v1/release-groups/00000000-0000-4000-a000-000000000000');
    assert.equal(unknown.status, 404);
    const malformed = await api<Problem>(app.baseUrl, 'GET', '/api/v1/release-groups/geogaddi');
    assert.equal(malformed.status, 400);
    assert.match(JSON.stringify(malformed.body.errors), /mbid/);
  });

  it('answers on a fresh install, without metadata.contact (issue #28)', async (t) => {
    const { app, album, musicbrainz } = await startMetadataApp(t, { withoutContact: true });
    const res = await api<{ title: string }>(app.baseUrl, 'GET', `/api/v1/release-groups/${album.id}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.title, album.title);
    assert.ok(musicbrainz.answered.length > 0);
  });

  it('takes the tracks from the earliest release when none is official', async (t) => {
    const { app, catalogue } = await startMetadataApp(t);
    const bare = catalogue.releaseGroups.find((group) => group.releases.every((release) => release.status !== 'Official'));
    assert.ok(bare, 'the catalogue has a group without an official release');
    const res = await api<ReleaseGroupDetail>(app.baseUrl, 'GET', `/api/v1/release-groups/${bare.id}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.tracks.length, 2);
    assert.equal(res.body.release_mbid, [...bare.releases].sort((a, b) => a.id.localeCompare(b.id))[0]?.id);
  });
});
