import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { ManualClock } from '../helpers/manual-clock.js';
import { rawRequest } from '../helpers/raw-request.js';
import { startFakeListenBrainz, type FakeListenBrainz, type FakeListenBrainzOptions } from './fake-listenbrainz.js';
import { SIMILAR_ARTIST_ALGORITHMS } from './fake-listenbrainz-labs.js';
import { startFakeMusicBrainz } from './fake-musicbrainz.js';
import { isJsonObject } from './is-json-object.js';
import { DELETED_RECORDING } from './listenbrainz-users.js';
import { generateMusicBrainzCatalogue } from './musicbrainz-catalogue.js';

async function start(t: TestContext, options: FakeListenBrainzOptions = {}): Promise<FakeListenBrainz> {
  const fake = await startFakeListenBrainz(options);
  t.after(() => fake.close());
  return fake;
}

async function payload(res: Response): Promise<Record<string, unknown>> {
  const body: unknown = await res.json();
  assert.ok(isJsonObject(body) && isJsonObject(body['payload']), 'a payload object');
  return body['payload'];
}

describe('fake ListenBrainz', () => {
  it('pages CF recommendations with count 25 by default, capped at 1000, raw scores and latest_listened_at', async (t) => {
    const fake = await start(t);
    const first = await payload(await fetch(`${fake.url}/1/cf/recommendation/user/ROB/recording`));
    assert.deepEqual([first['count'], first['total_mbid_count'], first['offset'], first['user_name'], first['model_id']], [25, 60, 0, 'ROB', null]);
    const mbids = first['mbids'];
    assert.ok(Array.isArray(mbids) && isJsonObject(mbids[0]));
    assert.ok(Number(mbids[0]['score']) > 1, 'ALS scores are not 0–1');
    assert.ok(mbids.some((item) => isJsonObject(item) && typeof item['latest_listened_at'] === 'string'));
    const rest = await payload(await fetch(`${fake.url}/1/cf/recommendation/user/rob/recording?count=5000&offset=50`));
    assert.equal(rest['count'], 10);
  });

  it('recommends a merged recording (301 at MusicBrainz), a deleted one (404), and negative scores', async (t) => {
    const catalogue = generateMusicBrainzCatalogue();
    const fake = await start(t, { catalogue });
    const musicbrainz = await startFakeMusicBrainz({ catalogue, rateLimit: false });
    t.after(() => musicbrainz.close());
    const list = await payload(await fetch(`${fake.url}/1/cf/recommendation/user/rob/recording?count=100`));
    const rows = Array.isArray(list['mbids']) ? list['mbids'].filter(isJsonObject) : [];
    assert.ok(rows.some((row) => Number(row['score']) < 0), 'negative scores');
    const lookup = (mbid: unknown) => rawRequest(`${musicbrainz.url}/ws/2/recording/${String(mbid)}?fmt=json`, { headers: { 'user-agent': 'crateflow-test/0 ( https://example.org )' } });
    const statuses = new Map<number, number>();
    for (const row of rows) {
      // MusicBrainz sheds load with a "busy" 503 now and then; asked again, it answers.
      let { status } = await lookup(row['recording_mbid']);
      while (status === 503) ({ status } = await lookup(row['recording_mbid']));
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    assert.deepEqual([statuses.get(301), statuses.get(404)], [1, 1], `statuses: ${JSON.stringify([...statuses])}`);
    assert.ok(rows.some((row) => row['recording_mbid'] === DELETED_RECORDING));
  });

  it('answers 204 with an empty body when nothing is computed, 404 for an unknown user, 400 for a bad count', async (t) => {
    const fake = await start(t);
    const none = await fetch(`${fake.url}/1/cf/recommendation/user/newbie/recording`);
    assert.deepEqual([none.status, await none.text()], [204, '']);
    const stats = await fetch(`${fake.url}/1/stats/user/newbie/artists`);
    assert.equal(stats.status, 204);
    const unknown = await fetch(`${fake.url}/1/cf/recommendation/user/someone/recording`);
    assert.deepEqual([unknown.status, await unknown.json()], [404, { code: 404, error: 'Cannot find user: someone' }]);
    const bad = await fetch(`${fake.url}/1/stats/user/rob/artists?count=-1`);
    assert.deepEqual(await bad.json(), { code: 400, error: "'count' should be a non-negative integer" });
    assert.equal((await fetch(`${fake.url}/1/stats/user/rob/artists?range=forever`)).status, 400);
  });

  it('answers 500 with JSON for a stored recommendations row it cannot read, and Labs 500 with {} when a query fails', async (t) => {
    const catalogue = generateMusicBrainzCatalogue();
    const seed = catalogue.artists[0]?.id ?? '';
    const fake = await start(t, { catalogue, similarityFailsFor: new Set([seed]) });
    const broken = await fetch(`${fake.url}/1/cf/recommendation/user/broken/recording`);
    assert.deepEqual([broken.status, broken.headers.get('x-ratelimit-limit'), await broken.json()], [500, '30', { code: 500, error: 'An unknown error occured.' }]);
    const failed = await fetch(`${fake.labsUrl}/similar-artists/json?artist_mbids=${seed}&algorithm=${SIMILAR_ARTIST_ALGORITHMS[0] ?? ''}`);
    assert.deepEqual([failed.status, await failed.json()], [500, {}]);
  });

  it('lists top artists with null for an artist without an MBID', async (t) => {
    const fake = await start(t);
    const top = await payload(await fetch(`${fake.url}/1/stats/user/rob/artists?count=100`));
    const artists = top['artists'];
    assert.ok(Array.isArray(artists));
    assert.ok(artists.some((artist) => isJsonObject(artist) && artist['artist_mbid'] === null));
    assert.equal(top['total_artist_count'], artists.length);
  });

  it('validates a token from the Token header, or from ?token= when the scheme is another', async (t) => {
    const fake = await start(t);
    const rob = fake.users[0];
    const valid = await (await fetch(`${fake.url}/1/validate-token`, { headers: { authorization: `token ${rob?.token ?? ''}` } })).json();
    assert.deepEqual(valid, { code: 200, message: 'Token valid.', valid: true, user_name: 'rob' });
    const bearer = await (await fetch(`${fake.url}/1/validate-token?token=nope`, { headers: { authorization: `Bearer ${rob?.token ?? ''}` } })).json();
    assert.deepEqual(bearer, { code: 200, message: 'Token invalid.', valid: false });
    assert.equal((await fetch(`${fake.url}/1/validate-token`)).status, 400);
  });

  it('limits 30 requests per aligned 10 s window with X-RateLimit headers on every answer, the 429 included', async (t) => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 0, 0, 0));
    const fake = await start(t, { clock });
    const url = `${fake.url}/1/stats/user/rob/artists?count=1`;
    for (let i = 0; i < 30; i++) assert.equal((await fetch(url)).status, 200);
    const over = await fetch(url);
    assert.equal(over.status, 429);
    assert.deepEqual([over.headers.get('x-ratelimit-remaining'), over.headers.get('x-ratelimit-reset-in'), over.headers.get('retry-after')], ['0', '10', null]);
    await clock.advance(10_000);
    assert.equal((await fetch(url)).headers.get('x-ratelimit-remaining'), '29');
  });

  it('answers a path no route matches (a one-letter user included) with Werkzeug\'s 404, outside the rate limit', async (t) => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 0, 0, 0));
    const fake = await start(t, { clock });
    const counted = await fetch(`${fake.url}/1/stats/user/rob/artists?count=1`);
    assert.deepEqual([counted.headers.get('x-ratelimit-remaining'), counted.headers.get('access-control-expose-headers')],
      ['29', 'X-RateLimit-Remaining,X-RateLimit-Limit,X-RateLimit-Reset,X-RateLimit-Reset-In']);
    for (const path of ['/1/no/such/route', '/1/cf/recommendation/user/r/recording']) {
      const res = await fetch(`${fake.url}${path}`);
      assert.equal(res.status, 404, path);
      assert.equal(res.headers.get('x-ratelimit-remaining'), null, path);
      const body: unknown = await res.json();
      assert.match(String(isJsonObject(body) ? body['error'] : body), /^The requested URL was not found on the server\. If you entered the URL manually/);
    }
    const next = await fetch(`${fake.url}/1/stats/user/rob/artists?count=x&offset=y`);
    assert.deepEqual([next.headers.get('x-ratelimit-remaining'), await next.json()], ['28', { code: 400, error: "'offset' should be a non-negative integer" }]);
  });

  it('drops the connection of a request without a User-Agent', async (t) => {
    const fake = await start(t);
    await assert.rejects(rawRequest(`${fake.url}/1/stats/user/rob/artists`));
  });

  it('answers Labs similar artists as a flat unsorted array with integer scores and null names, HTML 400 for bad input', async (t) => {
    const fake = await start(t);
    const seed = (fake.users[0]?.topArtists?.[0]?.artist_mbid ?? '');
    const url = `${fake.labsUrl}/similar-artists/json?artist_mbids=${seed}&algorithm=${SIMILAR_ARTIST_ALGORITHMS[0] ?? ''}`;
    const rows: unknown = await (await fetch(url)).json();
    assert.ok(Array.isArray(rows) && rows.length > 1);
    const scores = rows.map((row) => (isJsonObject(row) ? Number(row['score']) : NaN));
    assert.ok(scores.every(Number.isInteger));
    assert.notDeepEqual(scores, [...scores].sort((a, b) => b - a), 'not sorted by score');
    assert.ok(rows.some((row) => isJsonObject(row) && row['name'] === null && row['reference_mbid'] === seed));
    const wrong = await fetch(url.replace(/algorithm=.*/, 'algorithm=days_9000'));
    assert.deepEqual([wrong.status, wrong.headers.get('content-type')], [400, 'text/html; charset=utf-8']);
    assert.equal((await fetch(`${url}&count=5`)).status, 400, 'count is refused on GET');
    assert.equal((await fetch(`${url}&count=-5`)).status, 200, 'a negative count on GET passes as absent');
    const unparsable = await fetch(`${url}&offset=two`);
    assert.deepEqual([unparsable.status, unparsable.headers.get('content-type')], [500, 'text/html; charset=utf-8'], 'int() fails outside any handler');
    const posted: unknown = await (await fetch(`${fake.labsUrl}/similar-artists/json?count=2`, { method: 'POST', body: JSON.stringify([{ artist_mbids: [seed], algorithm: SIMILAR_ARTIST_ALGORITHMS[1] }]) })).json();
    assert.ok(Array.isArray(posted) && posted.length === 2);
    const all: unknown = await (await fetch(`${fake.labsUrl}/similar-artists/json?count=0`, { method: 'POST', body: JSON.stringify([{ artist_mbids: [seed], algorithm: SIMILAR_ARTIST_ALGORITHMS[1] }]) })).json();
    assert.ok(Array.isArray(all) && all.length === rows.length, 'a POST count of 0 means the default 100');
  });
  it('answers Labs from a similarity table when a test gives one: its rows per seed, null names off the mirror, [] for other seeds', async (t) => {
    const catalogue = generateMusicBrainzCatalogue();
    const [seed, similar, other] = catalogue.artists;
    const offMirror = '00000000-0000-4000-a000-000000000001';
    const fake = await start(t, { catalogue, similarity: new Map([[seed?.id ?? '', [{ mbid: similar?.id ?? '', score: 700 }, { mbid: offMirror, score: 300 }]]]) });
    const ask = async (mbid: string): Promise<unknown> => (await fetch(`${fake.labsUrl}/similar-artists/json?artist_mbids=${mbid}&algorithm=${SIMILAR_ARTIST_ALGORITHMS[0] ?? ''}`)).json();
    const rows = await ask(seed?.id ?? '');
    assert.ok(Array.isArray(rows));
    const byMbid = new Map(rows.filter(isJsonObject).map((row) => [row['artist_mbid'], row]));
    assert.deepEqual([byMbid.get(similar?.id)?.['name'], byMbid.get(similar?.id)?.['score'], byMbid.get(similar?.id)?.['reference_mbid']], [similar?.name, 700, seed?.id]);
    assert.equal(byMbid.get(offMirror)?.['name'], null);
    assert.deepEqual(await ask(other?.id ?? ''), []);
  });
});
