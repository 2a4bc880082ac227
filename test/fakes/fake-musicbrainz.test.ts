import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { ManualClock } from '../helpers/manual-clock.js';
import { rawRequest } from '../helpers/raw-request.js';
import { startFakeMusicBrainz, type FakeMusicBrainz, type FakeMusicBrainzOptions } from './fake-musicbrainz.js';
import { fakeMbid } from './musicbrainz-catalogue.js';
import { isJsonObject } from './is-json-object.js';

const UA = { 'user-agent': 'CrateflowTest/0.1 ( https://example.org/crateflow )' };

async function start(t: TestContext, options: FakeMusicBrainzOptions = {}): Promise<FakeMusicBrainz> {
  const fake = await startFakeMusicBrainz({ rateLimit: false, ...options });
  t.after(() => fake.close());
  return fake;
}

async function get(fake: FakeMusicBrainz, path: string, headers: Record<string, string> = UA): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(`${fake.url}/ws/2/${path}`, { headers });
  const body: unknown = await res.json();
  assert.ok(isJsonObject(body), `${path} answers a JSON object`);
  return { status: res.status, body, headers: res.headers };
}

function list(value: unknown): Record<string, unknown>[] {
  assert.ok(Array.isArray(value), 'expected an array');
  return value.filter(isJsonObject);
}

describe('fake MusicBrainz', () => {
  it('answers 403 with the "has not identified itself" body to a request without a User-Agent', async (t) => {
    const fake = await start(t);
    const artist = fake.catalogue.artists[0]?.id ?? '';
    // fetch() always adds a User-Agent; node:http does not.
    const res = await rawRequest(`${fake.url}/ws/2/artist/${artist}?fmt=json`);
    assert.equal(res.status, 403);
    assert.match(res.text, /has not identified itself/);
    assert.equal(res.headers['x-ratelimit-who'], 'ua-missing');
  });

  it('refuses every request with 503 while a client averages more than 1 request/s, on its own clock', async (t) => {
    const clock = new ManualClock();
    const fake = await start(t, { clock, rateLimit: { perSecond: 1, burst: 1 } });
    const path = `artist/${fake.catalogue.artists[0]?.id ?? ''}?fmt=json`;
    assert.equal((await get(fake, path)).status, 200);
    const refused = await get(fake, path);
    assert.equal(refused.status, 503);
    assert.match(String(refused.body['error']), /exceeding the allowable rate limit/);
    assert.deepEqual([refused.headers.get('retry-after'), refused.headers.get('x-ratelimit-zone')], ['1', 'ws ip=127.0.0.1']);
    await clock.advance(1000);
    assert.equal((await get(fake, path)).status, 503, 'a refused request counted too, so 1 s later the client is still over');
    await clock.advance(2000);
    assert.equal((await get(fake, path)).status, 200);
    assert.equal(fake.refusedForRate, 2);
  });

  it('answers 400 "Invalid mbid." for a malformed id, 404 for an unknown one, and 301 to the target for a merged one', async (t) => {
    const fake = await start(t);
    assert.deepEqual((await get(fake, 'release-group/not-an-id?fmt=json')).body['error'], 'Invalid mbid.');
    const unknown = await get(fake, `release-group/${fakeMbid(99, 'nothing')}?fmt=json`);
    assert.deepEqual([unknown.status, unknown.body['error']], [404, 'Not Found']);
    const [merged, target] = [...fake.catalogue.redirects].find(([, to]) => fake.catalogue.releaseGroup(to)) ?? [];
    const moved = await fetch(`${fake.url}/ws/2/release-group/${merged ?? ''}?inc=artist-credits&fmt=json`, { headers: UA, redirect: 'manual' });
    assert.equal(moved.status, 301);
    assert.equal(moved.headers.get('location'), `${fake.url}/ws/2/release-group/${target ?? ''}?inc=artist-credits&fmt=json`);
    const movedBody: unknown = await moved.json();
    assert.ok(isJsonObject(movedBody) && movedBody['id'] === target, 'the 301 carries the target entity, as the real lookup writes it');
    const browse = await get(fake, `release-group?artist=${[...fake.catalogue.redirects].find(([, to]) => fake.catalogue.artist(to))?.[0] ?? ''}&fmt=json`);
    assert.equal(browse.status, 200, 'a browse by a merged MBID resolves it');
    assert.ok(Number(browse.body['release-group-count']) > 0, 'and lists the release groups of the artist that absorbed it');
    assert.equal((await get(fake, `release-group/${target ?? ''}?inc=bogus&fmt=json`)).body['error'], 'bogus is not a valid inc parameter for the release-group resource.');
  });

  it('serves XML unless fmt=json or Accept asks for JSON', async (t) => {
    const fake = await start(t);
    const path = `${fake.url}/ws/2/artist/${fake.catalogue.artists[0]?.id ?? ''}`;
    const xml = await fetch(path, { headers: UA });
    assert.match(xml.headers.get('content-type') ?? '', /xml/);
    const json = await fetch(path, { headers: { ...UA, accept: 'application/json' } });
    assert.match(json.headers.get('content-type') ?? '', /application\/json/);
  });

  it('browses release groups 25 by default, clamps limit to 100, counts, sorts each page by MBID and keeps secondaries under type=album', async (t) => {
    const fake = await start(t);
    const artist = fake.catalogue.artists[0]?.id ?? '';
    const first = await get(fake, `release-group?artist=${artist}&fmt=json`);
    assert.equal(list(first.body['release-groups']).length, 25);
    const all = await get(fake, `release-group?artist=${artist}&limit=500&fmt=json`);
    const page = list(all.body['release-groups']);
    assert.equal(page.length, 100);
    assert.equal(all.body['release-group-count'], fake.catalogue.releaseGroupsOf(artist).length);
    const ids = page.map((group) => String(group['id']));
    assert.deepEqual(ids, [...ids].sort());
    const albums = list((await get(fake, `release-group?artist=${artist}&type=album&limit=100&fmt=json`)).body['release-groups']);
    assert.ok(albums.some((group) => Array.isArray(group['secondary-types']) && group['secondary-types'].length > 0), 'compilations and live albums come with type=album');
    assert.ok(page.some((group) => group['first-release-date'] === ''), 'an unknown date is an empty string');
    const rest = list((await get(fake, `release-group?artist=${artist}&limit=100&offset=100&fmt=json`)).body['release-groups']);
    assert.equal(rest.length, fake.catalogue.releaseGroupsOf(artist).length - 100);
    assert.ok(rest.some((group) => group['primary-type'] === null), 'a group without a primary type says null (and pages last)');
    assert.equal(page[0]?.['artist-credit'], undefined, 'no credit without inc=artist-credits');
    assert.equal((await get(fake, `release-group?artist=${artist}&type=Album&fmt=json`)).body['error'], 'Album is not a recognized release-group type.');
    assert.equal((await get(fake, `release-group?artist=${artist}&limit=ten&fmt=json`)).body['error'], "The 'limit' and 'offset' parameters must be positive integers");
  });

  it('looks up a recording with releases and their release groups, leaving out an unknown first-release-date', async (t) => {
    const fake = await start(t);
    const recording = fake.catalogue.recordings.find((item) => item.firstReleaseDate === undefined) ?? fake.catalogue.recordings[0];
    const res = await get(fake, `recording/${recording?.id ?? ''}?inc=artist-credits+releases+release-groups&fmt=json`);
    assert.equal('first-release-date' in res.body, false);
    assert.ok(Array.isArray(res.body['artist-credit']));
    const release = list(res.body['releases'])[0];
    assert.ok(release && isJsonObject(release['release-group']));
    const withoutGroups = await get(fake, `recording/${recording?.id ?? ''}?inc=releases&fmt=json`);
    assert.equal(list(withoutGroups.body['releases'])[0]?.['release-group'], undefined);
  });

  it('lists at most 25 releases in a release-group lookup', async (t) => {
    const fake = await start(t);
    const big = fake.catalogue.releaseGroups.find((group) => group.releases.length > 25);
    const res = await get(fake, `release-group/${big?.id ?? ''}?inc=artist-credits+releases&fmt=json`);
    assert.equal(list(res.body['releases']).length, 25);
    assert.equal(list(res.body['artist-credit'])[0]?.['name'], big?.credit[0]?.name);
  });

  it('searches release groups with Lucene fields: integer scores, empty fields left out, a count per group', async (t) => {
    const fake = await start(t);
    const group = fake.catalogue.releaseGroups.find((item) => item.firstReleaseDate === '' && item.primaryType === 'Album') ?? fake.catalogue.releaseGroups[0];
    const query = encodeURIComponent(`releasegroup:"${group?.title ?? ''}" AND artist:"${group?.credit[0]?.name ?? ''}"`);
    const res = await get(fake, `release-group?query=${query}&fmt=json`);
    const hit = list(res.body['release-groups']).find((item) => item['id'] === group?.id);
    assert.ok(hit);
    assert.deepEqual([hit['score'], hit['count'], 'first-release-date' in hit, 'disambiguation' in hit], [100, group?.releases.length, false, false]);
    assert.match(String(res.body['created']), /^\d{4}-\d\d-\d\dT/);
    const empty = await get(fake, 'release-group?query=&fmt=json');
    assert.deepEqual([empty.status, empty.body['error']], [400, 'The given parameters do not match any available query type for the release-group resource.']);
    const blank = await get(fake, 'release-group?query=%20%20&fmt=json');
    assert.deepEqual([blank.status, String(blank.body['error']).startsWith('You submitted a blank search query')], [400, true]);
  });

  it('reads OR, parentheses and boosts in a release group search, as the full Lucene syntax MusicBrainz takes', async (t) => {
    const fake = await start(t);
    const [first, second] = fake.catalogue.releaseGroups.filter((item) => item.credit.length === 1 && item.credit[0]?.artist.id !== fake.catalogue.releaseGroups[0]?.credit[0]?.artist.id);
    const byTitle = fake.catalogue.releaseGroups[0];
    assert.ok(first && second && byTitle);
    const ids = async (query: string) => list((await get(fake, `release-group?query=${encodeURIComponent(query)}&limit=100&fmt=json`)).body['release-groups']).map((hit) => hit['id']);
    const either = await ids(`(releasegroup:"${byTitle.title}" OR artist:"${first.credit[0]?.name ?? ''}"^2)`);
    assert.ok(either.includes(byTitle.id), 'the title alternative matches');
    assert.ok(either.includes(first.id) && either.includes(second.id), "the artist alternative matches the artist's groups");
    const narrowed = await ids(`(releasegroup:"${first.title}" OR releasegroup:"${byTitle.title}") AND arid:${first.credit[0]?.artist.id ?? ''}`);
    assert.ok(narrowed.includes(first.id) && !narrowed.includes(byTitle.id), 'AND applies to each alternative');
  });

  it('takes a search limit or offset that is not a positive integer as the default, where a browse refuses it', async (t) => {
    const fake = await start(t);
    const query = encodeURIComponent('primarytype:album');
    const standard = await get(fake, `release-group?query=${query}&fmt=json`);
    for (const paging of ['limit=ten&offset=-3', 'limit=0&offset=x', 'limit=500']) {
      const res = await get(fake, `release-group?query=${query}&${paging}&fmt=json`);
      assert.equal(res.status, 200, paging);
      assert.deepEqual([res.body['offset'], list(res.body['release-groups']).length], [0, list(standard.body['release-groups']).length], paging);
    }
    assert.equal(list(standard.body['release-groups']).length, 25);
  });

  it('needs escaped quotes in a phrase: the unescaped title finds nothing', async (t) => {
    const fake = await start(t);
    const quoted = fake.catalogue.releaseGroups.find((item) => item.title.includes('"'));
    const escaped = `releasegroup:"${(quoted?.title ?? '').replace(/"/g, '\\"')}"`;
    assert.ok(list((await get(fake, `release-group?query=${encodeURIComponent(escaped)}&fmt=json`)).body['release-groups']).some((hit) => hit['id'] === quoted?.id));
    const raw = `releasegroup:"${quoted?.title ?? ''}"`;
    assert.equal(list((await get(fake, `release-group?query=${encodeURIComponent(raw)}&fmt=json`)).body['release-groups']).some((hit) => hit['id'] === quoted?.id), false);
  });

  it('ranks a namesake level with the artist searched for, and first', async (t) => {
    const fake = await start(t);
    const name = fake.catalogue.artists[0]?.name ?? '';
    const hits = list((await get(fake, `artist?query=${encodeURIComponent(`artist:"${name}"`)}&fmt=json`)).body['artists']);
    assert.deepEqual(hits.slice(0, 2).map((hit) => [hit['score'], hit['disambiguation']]), [[100, 'namesake'], [100, undefined]]);
  });

  it('browses release groups without artist-credit unless inc=artist-credits, then with the whole credit and its join phrases', async (t) => {
    const fake = await start(t);
    const collaboration = fake.catalogue.releaseGroups.find((group) => group.credit.length > 1);
    const guest = collaboration?.credit[1]?.artist.id ?? '';
    const find = (body: Record<string, unknown>) => list(body['release-groups']).find((group) => group['id'] === collaboration?.id);
    const bare = find((await get(fake, `release-group?artist=${guest}&limit=100&fmt=json`)).body);
    assert.ok(bare, 'a collaboration is browsed under its second artist too');
    assert.equal('artist-credit' in bare, false);
    const credited = find((await get(fake, `release-group?artist=${guest}&inc=artist-credits&limit=100&fmt=json`)).body);
    assert.deepEqual(list(credited?.['artist-credit']).map((part) => [part['name'], part['joinphrase']]), collaboration?.credit.map((part) => [part.name, part.joinphrase]));
    assert.match(collaboration?.credit[0]?.joinphrase ?? '', / & /);
  });

  it('lists at most 25 releases in a recording lookup', async (t) => {
    const fake = await start(t);
    const recording = fake.catalogue.recordings.find((item) => item.releaseIds.length > 25);
    assert.ok(recording, 'the catalogue has a recording on more than 25 releases');
    const res = await get(fake, `recording/${recording.id}?inc=releases&fmt=json`);
    assert.equal(list(res.body['releases']).length, 25);
  });

  it('scores the best search hit 100 even when it matches only part of the title, the rest relative to it', async (t) => {
    const fake = await start(t);
    const group = fake.catalogue.releaseGroups.find((item) => item.credit.length === 1 && / /.test(item.title) && !item.title.includes('"'));
    const word = group?.title.split(' ')[1] ?? '';
    const query = encodeURIComponent(`releasegroup:"${word}" AND arid:${group?.credit[0]?.artist.id ?? ''}`);
    const hits = list((await get(fake, `release-group?query=${query}&fmt=json`)).body['release-groups']);
    assert.ok(hits.length > 0 && hits.every((hit) => String(hit['title']).toLowerCase() !== word.toLowerCase()), 'no hit is exact');
    assert.equal(hits[0]?.['score'], 100);
    const artist = fake.catalogue.artists[1]?.name ?? '';
    const partial = list((await get(fake, `artist?query=${encodeURIComponent(`artist:"${artist.slice(0, 4)}"`)}&fmt=json`)).body['artists']);
    assert.equal(partial[0]?.['score'], 100, 'an artist named only in part is still the best hit');
  });

  it('writes names as MusicBrainz does: ’ (U+2019), ‐ (U+2010) and accents in the default catalogue\'s first artists', async (t) => {
    const fake = await start(t);
    const names = fake.catalogue.artists.slice(0, 4).map((artist) => artist.name).join(' ');
    assert.match(names, /\u2019/);
    assert.match(names, /\u2010/);
    assert.match(names, /[ØñéÉ]/);
    assert.ok(fake.catalogue.releaseGroups.some((group) => /[\u2019\u2010]/.test(group.title)), 'titles too');
  });

  it('sheds load by default: every 8th request gets the busy 503 with Retry-After: 0, and the retry is answered', async (t) => {
    const fake = await start(t);
    const path = `artist/${fake.catalogue.artists[0]?.id ?? ''}?fmt=json`;
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++) {
      const res = await get(fake, path);
      statuses.push(res.status);
      if (res.status === 503) {
        assert.deepEqual([res.headers.get('retry-after'), res.headers.get('x-ratelimit-zone'), res.body['error']],
          ['0', 'global', 'The MusicBrainz web server is currently busy. Please try again later.']);
      }
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 200, 503, 200]);
    assert.equal(fake.shed, 1);
  });

  it('fails on demand as the edge does: global shedding, an HTML 502, and counts requests per path', async (t) => {
    const fake = await start(t);
    const path = `artist/${fake.catalogue.artists[0]?.id ?? ''}?fmt=json`;
    fake.failNext(1, 'busy');
    fake.failNext(1, 'html-502');
    const busy = await get(fake, path);
    assert.deepEqual([busy.status, busy.headers.get('x-ratelimit-zone'), busy.headers.get('retry-after')], [503, 'global', '0']);
    const outage = await fetch(`${fake.url}/ws/2/${path}`, { headers: UA });
    assert.deepEqual([outage.status, (await outage.text()).includes('Server being naughty')], [502, true]);
    assert.equal((await get(fake, path)).status, 200);
    assert.equal(fake.requestsTo('/ws/2/artist/'), 3);
    assert.equal(fake.requestsTo('/ws/2/release-group'), 0);
  });
});
