import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import type { SearchResults } from '../../../core/search/search.schema.js';
import { startFakeMusicBrainz } from '../../fakes/fake-musicbrainz.js';
import { fakeMbid, generateMusicBrainzCatalogue, type MbArtist, type MbReleaseGroup, type MusicBrainzCatalogue } from '../../fakes/musicbrainz-catalogue.js';
import { api } from '../../helpers/api-client.js';
import { startApp } from '../../helpers/start-app.js';

// Issue #28: typing an artist's name alone ("Low") must list that artist's albums, not only albums whose title
// contains the word. The world: the band Low (two albums and a single), David Bowie's album "Low", New Order's
// "Low-Life" and a band whose name merely contains the word. Title matches come first in the catalogue, so the fake's
// tie order alone would put them first.

const artist = (label: string, name: string): MbArtist => ({ id: fakeMbid(28, label), name, sortName: name, disambiguation: '', type: 'Group' });
const LOW = artist('low', 'Low');
const BOWIE = artist('bowie', 'David Bowie');
const NEW_ORDER = artist('new order', 'New Order');
const LOW_CUT = artist('low cut', 'Low Cut Connie');

const group = (label: string, title: string, by: MbArtist, primaryType: MbReleaseGroup['primaryType'], year: string): MbReleaseGroup => ({
  id: fakeMbid(28, label), title, primaryType, secondaryTypes: [], firstReleaseDate: year, disambiguation: '',
  credit: [{ name: by.name, joinphrase: '', artist: by }],
  releases: [{ id: fakeMbid(28, `${label} release`), title, status: 'Official', date: year, country: 'US', releaseGroupId: fakeMbid(28, label) }],
});
const BOWIE_LOW = group('bowie low', 'Low', BOWIE, 'Album', '1977-01-14');
const LOW_LIFE = group('low life', 'Low‐Life', NEW_ORDER, 'Album', '1985-05-13');
const LOW_SINGLE = group('low single', 'Just Like Christmas', LOW, 'Single', '1999');
const LOW_FIRE = group('low fire', 'Things We Lost in the Fire', LOW, 'Album', '2001-01-22');
const LOW_NEGATIVE = group('low double', 'Double Negative', LOW, 'Album', '2018-09-14');
const LOW_CUT_ALBUM = group('low cut album', 'Dirty Pictures', LOW_CUT, 'Album', '2017');

function lowWorld(): MusicBrainzCatalogue {
  const base = generateMusicBrainzCatalogue();
  const added = [BOWIE_LOW, LOW_LIFE, LOW_SINGLE, LOW_FIRE, LOW_CUT_ALBUM, LOW_NEGATIVE];
  const artists = [LOW, BOWIE, NEW_ORDER, LOW_CUT];
  return {
    ...base,
    artists: [...base.artists, ...artists],
    releaseGroups: [...added, ...base.releaseGroups],
    artist: (id) => artists.find((a) => a.id === id) ?? base.artist(id),
    releaseGroup: (id) => added.find((g) => g.id === id) ?? base.releaseGroup(id),
    releaseGroupsOf: (id) => [...added.filter((g) => g.credit.some((c) => c.artist.id === id)), ...base.releaseGroupsOf(id)],
  };
}

async function start(t: TestContext) {
  const musicbrainz = await startFakeMusicBrainz({ catalogue: lowWorld(), rateLimit: false });
  t.after(() => musicbrainz.close());
  // No metadata.contact: a fresh install searches too.
  const app = await startApp({ config: { metadata: { musicbrainz: { url: musicbrainz.url, request_interval_ms: 0 } } } });
  t.after(() => app.close());
  return { app, musicbrainz };
}

describe('GET /api/v1/search with an artist name alone', () => {
  it('lists the albums of the artist named "Low" first, then albums called Low, then the artist\'s singles, then the rest', async (t) => {
    const { app, musicbrainz } = await start(t);
    const res = await api<SearchResults>(app.baseUrl, 'GET', '/api/v1/search?q=low');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const listed = res.body.items.map((item) => `${item.artist}: ${item.title}`);
    assert.deepEqual(listed.slice(0, 4), ['Low: Things We Lost in the Fire', 'Low: Double Negative', 'David Bowie: Low', 'Low: Just Like Christmas']);
    assert.ok(listed.includes('New Order: Low‐Life'), listed.join(', '));
    assert.ok(listed.indexOf('New Order: Low‐Life') > 3);
    // One request: the title or the artist may match (MusicBrainz search fields releasegroup and artist).
    assert.deepEqual(musicbrainz.answered.map((answer) => answer.query.get('query')), ['(releasegroup:"low" OR artist:"low"^2)']);
  });

  it('keeps "Artist - Album" a search for that album by that artist only', async (t) => {
    const { app, musicbrainz } = await start(t);
    const res = await api<SearchResults>(app.baseUrl, 'GET', `/api/v1/search?q=${encodeURIComponent('David Bowie - Low')}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.items.map((item) => `${item.artist}: ${item.title}`), ['David Bowie: Low']);
    assert.equal(musicbrainz.answered[0]?.query.get('query'), 'releasegroup:"Low" AND artist:"David Bowie"');
  });
});
