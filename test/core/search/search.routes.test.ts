import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import type { ReleaseGroupResult, SearchResults } from '../../../core/search/search.schema.js';
import type { MbReleaseGroup } from '../../fakes/musicbrainz-catalogue.js';
import { api, eventually } from '../../helpers/api-client.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { writeAlbum } from '../../helpers/write-album.js';
import { PROJECT_URL } from '../../../core/metadata/project-url.js';
import { readVersion } from '../../../core/version.js';
import { creditOf, startMetadataApp, yearOf } from '../metadata/metadata-test-app.js';

interface Problem {
  type: string;
  status: number;
  detail?: string;
  errors?: { path: string; message: string }[];
}

const FLAGS = ['in_library', 'queued', 'wishlisted', 'rejected'] as const;

async function searchFor(baseUrl: string, group: MbReleaseGroup): Promise<ReleaseGroupResult> {
  const res = await api<SearchResults>(baseUrl, 'GET', `/api/v1/search?q=${encodeURIComponent(`${creditOf(group)} - ${group.title}`)}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const hit = res.body.items.find((item) => item.mbid === group.id);
  assert.ok(hit, `${group.title} is among ${JSON.stringify(res.body.items.map((item) => item.title))}`);
  return hit;
}

function flagsOf(result: ReleaseGroupResult): string[] {
  return FLAGS.filter((flag) => result[flag]);
}

describe('GET /api/v1/search', () => {
  it('finds release groups by "Artist - Album" with their type, year and a cover served by Crateflow', async (t) => {
    const { app, album } = await startMetadataApp(t);
    const res = await api<SearchResults>(app.baseUrl, 'GET', `/api/v1/search?q=${encodeURIComponent(`${creditOf(album)} - ${album.title}`)}&limit=5`);
    assert.equal(res.status, 200);
    assert.equal(res.body.artist, creditOf(album));
    assert.equal(res.body.title, album.title);
    assert.ok(res.body.items.length <= 5);
    assert.deepEqual(res.body.items[0], {
      mbid: album.id, artist: creditOf(album), title: album.title, year: yearOf(album), primary_type: 'Album', secondary_types: [], score: 100,
      cover_url: `/api/v1/covers/${album.id}`, in_library: false, queued: false, wishlisted: false, rejected: false,
    });
  });

  it('searches titles and artists when the text names no artist, and answers a repeated search from the cache', async (t) => {
    const { app, album, musicbrainz } = await startMetadataApp(t);
    const path = `/api/v1/search?q=${encodeURIComponent(album.title)}`;
    const first = await api<SearchResults>(app.baseUrl, 'GET', path);
    assert.equal(first.status, 200);
    assert.equal(first.body.artist, undefined);
    assert.ok(first.body.items.some((item) => item.mbid === album.id));
    const asked = musicbrainz.answered.length;
    const query = musicbrainz.answered.at(-1)?.query.get('query') ?? '';
    assert.equal(query, `(releasegroup:"${album.title}" OR artist:"${album.title}"^2)`);
    assert.deepEqual((await api<SearchResults>(app.baseUrl, 'GET', path)).body, first.body);
    assert.equal(musicbrainz.answered.length, asked, 'no second request to MusicBrainz');
  });

  it('marks each result in_library, queued, wishlisted or rejected from what Crateflow holds', async (t) => {
    const { app, catalogue } = await startMetadataApp(t);
    const [owned, queued, wanted, rejected] = catalogue.releaseGroups.filter((group) =>
      group.credit.length === 1 && group.primaryType === 'Album' && /^[A-Za-z ]+$/.test(group.title) && group.credit[0]?.artist.id === catalogue.artists[0]?.id);
    assert.ok(owned && queued && wanted && rejected);
    for (const group of [owned, queued, wanted, rejected]) assert.deepEqual(flagsOf(await searchFor(app.baseUrl, group)), []);

    await writeAlbum(join(dirname(app.dataDir), 'music', creditOf(owned), owned.title));
    const sync = await api<{ job: { id: string } }>(app.baseUrl, 'POST', '/api/v1/library/sync');
    await eventually(async () => ((await api<{ status: string }>(app.baseUrl, 'GET', `/api/v1/jobs/${sync.body.job.id}`)).body.status === 'completed' ? true : undefined));
    // By name only: the queue matches normalised artist + album when no mbid was given.
    assert.equal((await api(app.baseUrl, 'POST', '/api/v1/queue', { artist: creditOf(queued).toUpperCase(), album: queued.title })).status, 201);
    assert.equal((await api(app.baseUrl, 'POST', '/api/v1/wishlist', { artist: creditOf(wanted), album: wanted.title, mbid: wanted.id })).status, 201);
    const proposed = await api<{ items: { id: string }[] }>(app.baseUrl, 'POST', '/api/v1/queue', { artist: creditOf(rejected), album: rejected.title });
    assert.equal((await api(app.baseUrl, 'POST', `/api/v1/queue/${proposed.body.items[0]?.id ?? ''}/reject`)).status, 200);

    assert.deepEqual(flagsOf(await searchFor(app.baseUrl, owned)), ['in_library']);
    assert.deepEqual(flagsOf(await searchFor(app.baseUrl, queued)), ['queued']);
    assert.deepEqual(flagsOf(await searchFor(app.baseUrl, wanted)), ['wishlisted']);
    assert.deepEqual(flagsOf(await searchFor(app.baseUrl, rejected)), ['rejected']);
  });

  it('works on a fresh install: without metadata.contact it asks MusicBrainz as Crateflow, with the project\'s address (issue #28)', async (t) => {
    const { app, album, musicbrainz } = await startMetadataApp(t, { withoutContact: true });
    const res = await api<SearchResults>(app.baseUrl, 'GET', `/api/v1/search?q=${encodeURIComponent(`${creditOf(album)} - ${album.title}`)}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.items[0]?.mbid, album.id);
    assert.deepEqual(musicbrainz.answered.map((answer) => answer.userAgent), [`Crateflow/${readVersion()} ( ${PROJECT_URL} )`]);
  });

  it('answers 400 naming q when it is missing, empty, blank or longer than 200 characters', async (t) => {
    const { app, musicbrainz } = await startMetadataApp(t);
    for (const query of ['', '?q=', `?q=${'a'.repeat(201)}`, '?q=%20%20%20', '?q=x&limit=101']) {
      const res = await api<Problem>(app.baseUrl, 'GET', `/api/v1/search${query}`);
      assert.equal(res.status, 400, query);
      assert.ok(res.body.errors?.some((e) => e.path === (query.includes('limit') ? 'query.limit' : 'query.q')), `${query}: ${JSON.stringify(res.body.errors)}`);
    }
    assert.equal(musicbrainz.answered.length, 0);
  });

  it('answers 503 upstream-unavailable when MusicBrainz cannot be reached, after its retries', async (t) => {
    const clock = new ManualClock();
    const { app, album } = await startMetadataApp(t, { clock, metadata: { musicbrainz: { url: 'http://127.0.0.1:9' } } });
    let settled = false;
    const answer = api<Problem>(app.baseUrl, 'GET', `/api/v1/search?q=${encodeURIComponent(album.title)}`).finally(() => {
      settled = true;
    });
    // The client backs off 1, 2 and 4 s between attempts, on the app's clock.
    while (!settled) {
      await clock.advance(1000);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const res = await answer;
    assert.equal(res.status, 503);
    assert.equal(res.body.type, 'urn:crateflow:problem:upstream-unavailable');
    assert.doesNotMatch(JSON.stringify(res.body), /127\.0\.0\.1|ECONNREFUSED/, 'no address or raw error in the answer');
  });
});
