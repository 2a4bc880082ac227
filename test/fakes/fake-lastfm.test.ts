import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { rawRequest } from '../helpers/raw-request.js';
import { STALE_ARTIST_MBID, startFakeLastFm, type FakeLastFm, type FakeLastFmOptions } from './fake-lastfm.js';
import { startFakeMusicBrainz } from './fake-musicbrainz.js';
import { generateMusicBrainzCatalogue } from './musicbrainz-catalogue.js';
import { isJsonObject } from './is-json-object.js';

async function start(t: TestContext, options: FakeLastFmOptions = {}): Promise<FakeLastFm> {
  const fake = await startFakeLastFm(options);
  t.after(() => fake.close());
  return fake;
}

function similarUrl(fake: FakeLastFm, params: Record<string, string>): string {
  return `${fake.url}/2.0/?${new URLSearchParams({ method: 'artist.getSimilar', api_key: fake.apiKey, format: 'json', ...params })}`;
}

async function similar(fake: FakeLastFm, params: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(similarUrl(fake, params));
  const body: unknown = await res.json();
  assert.ok(isJsonObject(body));
  return { status: res.status, body };
}

function artistsOf(body: Record<string, unknown>): Record<string, unknown>[] {
  const wrapper = body['similarartists'];
  assert.ok(isJsonObject(wrapper) && Array.isArray(wrapper['artist']));
  return wrapper['artist'].filter(isJsonObject);
}

describe('fake Last.fm', () => {
  it('answers artist.getSimilar with string matches from "1" down, and mbid as a UUID, "" or absent', async (t) => {
    const fake = await start(t);
    const seed = fake.catalogue.artists[1]?.name ?? '';
    const { body } = await similar(fake, { artist: seed, limit: '50' });
    const artists = artistsOf(body);
    assert.equal(artists[0]?.['match'], '1');
    assert.ok(artists.every((artist) => typeof artist['match'] === 'string' && Number(artist['match']) <= 1));
    assert.ok(artists.some((artist) => artist['mbid'] === ''));
    assert.ok(artists.some((artist) => !('mbid' in artist)));
    assert.ok(artists.some((artist) => typeof artist['mbid'] === 'string' && /^[0-9a-f-]{36}$/.test(artist['mbid'])));
    assert.equal(artistsOf((await similar(fake, { artist: seed, limit: '2' })).body).length, 2);
  });

  it('gives known artists an empty, a missing, a stale (404 at MusicBrainz) and a merged (301) MBID besides right ones', async (t) => {
    // Eight artists, as the discovery tests use: the default catalogue's four leave too few for every kind.
    const fake = await start(t, { catalogue: generateMusicBrainzCatalogue({ artists: 8 }) });
    const musicbrainz = await startFakeMusicBrainz({ catalogue: fake.catalogue, rateLimit: false });
    t.after(() => musicbrainz.close());
    const [first, seed] = fake.catalogue.artists;
    const rows = artistsOf((await similar(fake, { artist: seed?.name ?? '', limit: '100' })).body);
    const known = new Set(fake.catalogue.artists.map((artist) => artist.name));
    const ofKnown = rows.filter((row) => typeof row['name'] === 'string' && known.has(row['name']));
    assert.ok(ofKnown.some((row) => row['mbid'] === ''), 'an empty MBID');
    assert.ok(ofKnown.some((row) => !('mbid' in row)), 'no MBID');
    assert.ok(ofKnown.some((row) => row['mbid'] === STALE_ARTIST_MBID), 'an MBID MusicBrainz does not know');
    const merged = ofKnown.find((row) => row['name'] === first?.name)?.['mbid'];
    assert.ok(typeof merged === 'string' && merged !== first?.id, 'an old, merged MBID');
    const lookup = (mbid: string) => rawRequest(`${musicbrainz.url}/ws/2/artist/${mbid}?fmt=json`, { headers: { 'user-agent': 'crateflow-test/0 ( https://example.org )' } });
    assert.equal((await lookup(STALE_ARTIST_MBID)).status, 404);
    const moved = await lookup(merged);
    assert.equal(moved.status, 301);
    assert.match(String(moved.headers.location), new RegExp(`/ws/2/artist/${first?.id ?? '-'}`));
  });

  it('reports errors in the body with their codes: 6 missing key (400), 10 bad key (403), 3 unknown method, 6 unknown artist with 200', async (t) => {
    const fake = await start(t);
    const missing = await fetch(`${fake.url}/2.0/?method=artist.getSimilar&artist=x&format=json`);
    assert.deepEqual([missing.status, await missing.json()], [400, { error: 6, message: 'Invalid parameters - Your request is missing a required parameter' }]);
    const badKey = await similar(fake, { api_key: 'nope', artist: 'x' });
    assert.deepEqual([badKey.status, badKey.body['error']], [403, 10]);
    const method = await similar(fake, { method: 'artist.getSimilars', artist: 'x' });
    assert.deepEqual([method.status, method.body['error']], [400, 3]);
    const unknown = await similar(fake, { artist: 'Nobody At All' });
    assert.deepEqual([unknown.status, unknown.body], [200, { error: 6, message: 'The artist you supplied could not be found', links: [] }]);
    const byMbid = await similar(fake, { mbid: fake.catalogue.artists[0]?.id ?? '' });
    assert.equal(byMbid.body['error'], 6, 'lookups by MBID fail');
  });

  it('gives [unknown] an empty list, and corrects a misspelling only with autocorrect=1, echoing the name in @attr', async (t) => {
    const fake = await start(t);
    assert.deepEqual(artistsOf((await similar(fake, { artist: '[unknown]' })).body), []);
    assert.equal((await similar(fake, { artist: fake.misspelling.wrong })).body['error'], 6);
    const corrected = await similar(fake, { artist: fake.misspelling.wrong, autocorrect: '1' });
    assert.deepEqual(dig(corrected.body), fake.misspelling.right);
  });

  it('answers XML without format=json, and injected transient errors once', async (t) => {
    const fake = await start(t);
    const seed = fake.catalogue.artists[1]?.name ?? '';
    const xml = await fetch(similarUrl(fake, { artist: seed, format: 'xml' }));
    assert.match(await xml.text(), /^<\?xml[^>]*>\s*<lfm status="ok">/);
    fake.failNext(1, 29);
    assert.equal((await similar(fake, { artist: seed })).body['error'], 29);
    assert.equal(artistsOf((await similar(fake, { artist: seed })).body).length > 0, true);
  });
});

function dig(body: Record<string, unknown>): unknown {
  const wrapper = body['similarartists'];
  const attr = isJsonObject(wrapper) ? wrapper['@attr'] : undefined;
  return isJsonObject(attr) ? attr['artist'] : undefined;
}
