import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { ManualClock } from '../helpers/manual-clock.js';
import { startFakeDeezer, type FakeDeezer, type FakeDeezerOptions } from './fake-deezer.js';
import { isJsonObject } from './is-json-object.js';

async function start(t: TestContext, options: FakeDeezerOptions = {}): Promise<FakeDeezer> {
  const fake = await startFakeDeezer(options);
  t.after(() => fake.close());
  return fake;
}

async function get(url: string): Promise<Record<string, unknown>> {
  const res = await fetch(url);
  assert.equal(res.status, 200, 'Deezer answers 200 even for errors');
  const body: unknown = await res.json();
  assert.ok(isJsonObject(body));
  return body;
}

function items(body: Record<string, unknown>): Record<string, unknown>[] {
  const data = body['data'];
  assert.ok(Array.isArray(data), 'a data array');
  return data.filter(isJsonObject);
}

describe('fake Deezer', () => {
  it('searches albums with artist:"…" album:"…", ranking compilations over the original and pulling in a tribute', async (t) => {
    const fake = await start(t);
    const original = fake.albums[0];
    const title = await get(`${fake.url}/search/album?q=${encodeURIComponent(`artist:"${original?.artist.name ?? ''}" album:"${original?.title ?? ''}"`)}`);
    assert.ok(items(title).some((album) => album['id'] === original?.id), 'found, though not necessarily first: ranking is by popularity');
    const byArtist = items(await get(`${fake.url}/search/album?q=${encodeURIComponent(`artist:"${original?.artist.name ?? ''}"`)}&limit=100`));
    assert.notEqual(byArtist[0]?.['id'], original?.id, 'the original album is outranked');
    const firstCompilation = byArtist.findIndex((album) => album['record_type'] === 'compile');
    assert.ok(firstCompilation >= 0 && firstCompilation < byArtist.findIndex((album) => album['id'] === original?.id), 'a compilation ranks above the original');
    assert.ok(byArtist.some((album) => isJsonObject(album['artist']) && album['artist']['name'] === 'Tribute Ensemble'));
  });

  it('files a collaboration under its lead artist only, naming everyone in the contributors of /album/{id} alone', async (t) => {
    const fake = await start(t, { quota: false });
    const collaboration = fake.albums.find((album) => album.contributors.length > 1);
    const [lead, guest] = collaboration?.contributors ?? [];
    assert.ok(collaboration && lead && guest);
    const hits = items(await get(`${fake.url}/search/album?q=${encodeURIComponent(`artist:"${lead.name} & ${guest.name}" album:"${collaboration.title}"`)}`));
    const hit = hits.find((album) => album['id'] === collaboration.id);
    assert.ok(hit, 'the whole credit still finds it (fuzzy artist match)');
    assert.deepEqual([isJsonObject(hit['artist']) && hit['artist']['name'], 'contributors' in hit], [lead.name, false]);
    assert.notEqual(hits[0]?.['id'], collaboration.id, 'a same-named album by a namesake of the lead ranks first');
    const album = await get(`${fake.url}/album/${collaboration.id}`);
    const contributors = Array.isArray(album['contributors']) ? album['contributors'].filter(isJsonObject) : [];
    assert.deepEqual(contributors.map((artist) => [artist['name'], artist['role']]), [[lead.name, 'Main'], [guest.name, 'Main']]);
  });

  it('matches a phrase by its words, as a full-text search does: punctuation and quotes in a title do not hide it', async (t) => {
    const fake = await start(t, { quota: false });
    const quoted = fake.albums.find((album) => album.title.includes('"'));
    assert.ok(quoted, 'the catalogue has a title with quotes');
    // What a client sends for `Songs: "Broken"` once it takes the quotes out of the phrase (reference §7).
    const words = quoted.title.replace(/"/g, ' ');
    const hits = items(await get(`${fake.url}/search/album?q=${encodeURIComponent(`artist:"${quoted.artist.name}" album:"${words}"`)}`));
    assert.ok(hits.some((album) => album['id'] === quoted.id), `found ${quoted.title} by ${words}`);
    const wrongWords = items(await get(`${fake.url}/search/album?q=${encodeURIComponent(`artist:"${quoted.artist.name}" album:"${words} Zyx"`)}`));
    assert.equal(wrongWords.some((album) => album['id'] === quoted.id), false, 'a word the title lacks still misses it');
  });

  it('numbers tracks per disc with track_position and disk_number in /album/{id}/tracks', async (t) => {
    const fake = await start(t, { quota: false });
    const twoDiscs = fake.albums.find((album) => album.tracks.some((track) => track.disk === 2));
    assert.ok(twoDiscs);
    const tracks = items(await get(`${fake.url}/album/${twoDiscs.id}/tracks`));
    assert.deepEqual(tracks.map((track) => `${String(track['disk_number'])}-${String(track['track_position'])}`),
      [...Array.from({ length: 9 }, (_, i) => `1-${i + 1}`), ...Array.from({ length: 8 }, (_, i) => `2-${i + 1}`)]);
  });

  it('lists a deluxe, a clean and the explicit edition as separate albums, the louder ones first, and labels remasters in the title', async (t) => {
    const fake = await start(t, { quota: false });
    const deluxe = fake.albums.find((album) => album.title.endsWith(' (Deluxe Edition)'));
    assert.ok(deluxe);
    const title = deluxe.title.replace(' (Deluxe Edition)', '');
    const hits = items(await get(`${fake.url}/search/album?q=${encodeURIComponent(`artist:"${deluxe.artist.name}" album:"${title}"`)}`));
    assert.deepEqual(hits.filter((album) => album['title'] === title || album['title'] === deluxe.title).map((album) => [album['title'], album['explicit_lyrics']]),
      [[deluxe.title, true], [title, false], [title, true]]);
    assert.ok(fake.albums.some((album) => album.title.endsWith(' (Remastered)')));
  });

  it('refuses the next answers with error 4 when other devices spent the shared quota, however slowly we ask', async (t) => {
    const fake = await start(t);
    fake.spendQuotaElsewhere(2, 1);
    const album = `${fake.url}/album/${fake.albums[0]?.id ?? 0}`;
    assert.equal('error' in (await get(album)), false, 'answered first');
    for (let i = 0; i < 2; i++) assert.deepEqual(await get(album), { error: { type: 'Exception', message: 'Quota limit exceeded', code: 4 } });
    assert.equal('error' in (await get(album)), false, 'and again once the others are done');
  });

  it('pages with index and limit (25 by default, 100 at most) and absolute next links that vanish on the last page', async (t) => {
    const fake = await start(t);
    const artist = fake.albums[0]?.artist.name ?? '';
    const first = await get(`${fake.url}/search/album?q=${encodeURIComponent(artist)}`);
    assert.equal(items(first).length, 25);
    assert.match(String(first['next']), new RegExp(`^${fake.url}/search/album\\?.*index=25`));
    const total = Number(first['total']);
    const last = await get(`${fake.url}/search/album?q=${encodeURIComponent(artist)}&index=${total - 1}&limit=500`);
    assert.deepEqual([items(last).length, 'next' in last, 'prev' in last], [1, false, true]);
  });

  it('embeds only 25 tracks in /album/{id} and pages the rest through /album/{id}/tracks', async (t) => {
    const fake = await start(t);
    const long = fake.albums.find((album) => album.tracks.length > 25);
    const album = await get(`${fake.url}/album/${long?.id ?? 0}`);
    assert.ok(isJsonObject(album['tracks']));
    assert.equal(items(album['tracks']).length, 25);
    assert.equal(album['nb_tracks'], long?.tracks.length);
    const rest = await get(`${fake.url}/album/${long?.id ?? 0}/tracks?index=25`);
    assert.equal(items(rest).length, (long?.tracks.length ?? 0) - 25);
    const tracks = items(album['tracks']);
    assert.ok(tracks.some((track) => track['preview'] === '' && track['readable'] === false), 'some previews are not licensed');
    assert.ok(tracks.some((track) => !('title_version' in track)), 'title_version is sometimes missing');
  });

  it('answers errors as HTTP 200 objects: 800 no data, 501 missing q, 500 empty q, 600 unknown path', async (t) => {
    const fake = await start(t);
    assert.deepEqual(await get(`${fake.url}/album/-1`), { error: { type: 'DataException', message: 'no data', code: 800 } });
    assert.deepEqual(await get(`${fake.url}/search/album`), { error: { type: 'MissingParameterException', message: 'Missing parameters: q', code: 501 } });
    assert.deepEqual(await get(`${fake.url}/search/album?q=`), { error: { type: 'ParameterException', message: 'empty parameter', code: 500 } });
    assert.deepEqual(await get(`${fake.url}/nonexistent`), { error: { type: 'InvalidQueryException', message: 'Unknown path components : /nonexistent', code: 600 } });
  });

  it('refuses the 51st distinct request in 5 s with error 4, while repeats of one URL do not count', async (t) => {
    const clock = new ManualClock();
    const fake = await start(t, { clock });
    for (let i = 0; i < 3; i++) await get(`${fake.url}/album/${fake.albums[0]?.id ?? 0}`);
    for (let i = 0; i < 49; i++) assert.equal('error' in (await get(`${fake.url}/search/album?q=x${i}`)), false);
    assert.deepEqual(await get(`${fake.url}/search/album?q=one-too-many`), { error: { type: 'Exception', message: 'Quota limit exceeded', code: 4 } });
    await clock.advance(5000);
    assert.equal('error' in (await get(`${fake.url}/search/album?q=later`)), false);
  });

  it('serves a signed 30 s MP3 preview with Range support, and 403 once the signature expires or is tampered with', async (t) => {
    const clock = new ManualClock();
    const fake = await start(t, { clock });
    const tracks = items(await get(`${fake.url}/album/${fake.albums[0]?.id ?? 0}/tracks`));
    const preview = String(tracks.find((track) => track['preview'] !== '')?.['preview']);
    assert.match(preview, new RegExp(`^${fake.cdnUrl}/api/1/1/[0-9a-f]{32}\\.mp3\\?hdnea=exp=\\d+~acl=[^~]+~hmac=[0-9a-f]{64}$`));
    const whole = await fetch(preview);
    const mp3 = Buffer.from(await whole.arrayBuffer());
    assert.deepEqual([whole.status, whole.headers.get('content-type'), whole.headers.get('access-control-allow-origin'), mp3.length], [200, 'audio/mpeg', '*', 480_000]);
    assert.deepEqual([...mp3.subarray(0, 2)], [0xff, 0xfb], 'an MPEG-1 Layer III frame header');
    const part = await fetch(preview, { headers: { range: 'bytes=384-767' } });
    assert.deepEqual([part.status, part.headers.get('content-range'), (await part.arrayBuffer()).byteLength], [206, 'bytes 384-767/480000', 384]);
    assert.equal((await fetch(preview.replace(/hmac=./, 'hmac=0'))).status, 403);
    await clock.advance(900_000);
    assert.equal((await fetch(preview)).status, 403, 'expired 900 s after the API answered');
  });
});
