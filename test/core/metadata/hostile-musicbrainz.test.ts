import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_HONOURED_RETRY_AFTER_MS } from '../../../core/metadata/retry-after.js';
import type { SearchResults } from '../../../core/search/search.schema.js';
import type { HostileAnswer } from '../../fakes/fake-musicbrainz.js';
import { api, type ApiResponse } from '../../helpers/api-client.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { runOnClock } from '../../helpers/run-on-clock.js';
import { startMetadataApp } from './metadata-test-app.js';

interface Problem {
  type: string;
  status: number;
  retry_after_s?: number;
}

// How many requests each answer takes before the client gives up: a redirect is followed three times, a broken or
// unreadable body is retried (four attempts), and a body past its bound or a redirect off /ws/2 is not retried.
const REQUESTS_TAKEN: readonly (readonly [HostileAnswer, number])[] = [
  ['redirect-loop', 4], ['file-redirect', 1], ['huge-body', 1], ['nested-json', 4], ['cut-off-body', 4],
];

function assertUnavailable(res: ApiResponse<Problem>, what: string): void {
  assert.equal(res.status, 503, `${what}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.type, 'urn:crateflow:problem:upstream-unavailable', what);
  assert.match(res.headers.get('retry-after') ?? '', /^[1-9]\d*$/, `${what} says when to try again`);
}

describe('MusicBrainz answers that cannot be used', () => {
  for (const [answer, requests] of REQUESTS_TAKEN) {
    it(`answers search, album panels and previews by mbid with 503 upstream-unavailable and Retry-After, never 500, to ${answer}`, async (t) => {
      const clock = new ManualClock();
      const { app, album, musicbrainz } = await startMetadataApp(t, { clock });
      const routes = {
        search: `/api/v1/search?q=${encodeURIComponent(album.title)}`,
        'album panel': `/api/v1/release-groups/${album.id}`,
        previews: `/api/v1/previews?mbid=${album.id}`,
      };
      for (const [what, path] of Object.entries(routes)) {
        musicbrainz.failNext(requests, answer);
        const before = musicbrainz.answered.length;
        assertUnavailable(await runOnClock(clock, api<Problem>(app.baseUrl, 'GET', path)), what);
        assert.equal(musicbrainz.answered.length - before, requests, `${what}: every hostile answer was read, no other request made`);
      }
      musicbrainz.failNext(requests, answer);
      const proposal = await runOnClock(clock, api<Problem>(app.baseUrl, 'POST', '/api/v1/queue', { mbid: album.id }));
      assert.equal(proposal.status, 503, `an mbid-only proposal: ${JSON.stringify(proposal.body)}`);
      // Nothing of it was cached: asked again, MusicBrainz answers as usual.
      const search = await runOnClock(clock, api<SearchResults>(app.baseUrl, 'GET', routes.search));
      assert.equal(search.status, 200);
      assert.ok(search.body.items.some((item) => item.mbid === album.id));
    });
  }

  it(`honours Retry-After: 999999999 for ${MAX_HONOURED_RETRY_AFTER_MS / 60_000} minutes at most, answering 503 at once instead of waiting`, async (t) => {
    const clock = new ManualClock();
    const { app, album, musicbrainz } = await startMetadataApp(t, { clock });
    musicbrainz.failNext(1, 'retry-after-huge');
    const path = `/api/v1/search?q=${encodeURIComponent(album.title)}`;
    let first: ApiResponse<Problem> | undefined;
    const asking = api<Problem>(app.baseUrl, 'GET', path).then((res) => (first = res));
    // Time moves a minute at a time, up to the cap: the answer must not wait for MusicBrainz's 31 years.
    for (let waited = 0; first === undefined && waited <= MAX_HONOURED_RETRY_AFTER_MS; waited += 60_000) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (first === undefined) await clock.advance(60_000);
    }
    assert.ok(first, 'the search was answered within the honoured wait');
    await asking;
    assertUnavailable(first, 'the search that met the Retry-After');
    assert.equal(first.headers.get('retry-after'), String(MAX_HONOURED_RETRY_AFTER_MS / 1000));

    // Every MusicBrainz request waits out the capped hold (the server asked), then goes through.
    const panel = api(app.baseUrl, 'GET', `/api/v1/release-groups/${album.id}`);
    const asked = musicbrainz.answered.length;
    const answer = await runOnClock(clock, panel, { limitMs: MAX_HONOURED_RETRY_AFTER_MS });
    assert.equal(answer.status, 200);
    assert.ok(musicbrainz.answered.length > asked);
  });
});
