import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ReleaseGroupDetails } from '../../../core/release-groups/release-group-details.js';
import type { SearchResults } from '../../../core/search/search.schema.js';
import { api, eventually, type ApiResponse } from '../../helpers/api-client.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { runOnClock } from '../../helpers/run-on-clock.js';
import { startMetadataApp } from '../metadata/metadata-test-app.js';

interface Problem {
  type: string;
  status: number;
  detail?: string;
  retry_after_s?: number;
}

/** An mbid MusicBrainz does not know: one request each (a 404), and no two alike, so none shares another's fetch. */
const unknownMbid = (n: number): string => `00000000-0000-4000-a000-${String(n).padStart(12, '0')}`;

/** Requests that settle are collected, so a test can wait for the ones answered at once. */
function collect<T>(requests: Promise<ApiResponse<T>>[]): { all: Promise<ApiResponse<T>[]>; settled: ApiResponse<T>[] } {
  const settled: ApiResponse<T>[] = [];
  return { all: Promise.all(requests.map((request) => request.then((res) => (settled.push(res), res)))), settled };
}

function assertBusy(res: ApiResponse<Problem>): void {
  assert.equal(res.status, 503);
  assert.equal(res.body.type, 'urn:crateflow:problem:upstream-unavailable');
  assert.match(res.headers.get('retry-after') ?? '', /^[1-9]\d*$/, 'a busy answer says when to try again');
  assert.equal(res.body.retry_after_s, Number(res.headers.get('retry-after')));
}

describe('MusicBrainz under a flood of album panels and searches', () => {
  it('looks up two album panels at once with eight waiting, refuses the rest at once with 503 and Retry-After, and a search goes before the waiting ones', async (t) => {
    // A request a second, as on musicbrainz.org, on a clock the test moves: 200 panels would take minutes.
    const clock = new ManualClock();
    const { app, album, musicbrainz } = await startMetadataApp(t, { clock, metadata: { musicbrainz: { request_interval_ms: 1000 } } });
    const details = app.crateflow.container.resolve(ReleaseGroupDetails);
    const panels = collect(Array.from({ length: 200 }, (_, n) => api<Problem>(app.baseUrl, 'GET', `/api/v1/release-groups/${unknownMbid(n)}`)));
    await eventually(() => (panels.settled.length + details.load.running + details.load.waiting === 200 ? true : undefined), 30_000, 'every panel answered, running or waiting');
    assert.ok(details.load.running <= 2 && details.load.waiting <= 8, `at most 2 running and 8 waiting, not ${JSON.stringify(details.load)}`);
    const refused = panels.settled.filter((res) => res.status === 503);
    assert.ok(refused.length >= 150, `most of the flood is refused at once (${refused.length} were)`);
    for (const res of refused) assertBusy(res);

    const before = musicbrainz.answered.length;
    const search = await runOnClock(clock, api<SearchResults>(app.baseUrl, 'GET', `/api/v1/search?q=${encodeURIComponent(album.title)}`));
    assert.equal(search.status, 200, JSON.stringify(search.body));
    const searchAt = musicbrainz.answered.findIndex((request) => request.path === '/ws/2/release-group' && request.query.has('query'));
    assert.ok(searchAt - before <= 6, `the search waited behind ${searchAt - before} panel requests, a handful, not the whole flood`);

    const answers = await runOnClock(clock, panels.all);
    assert.equal(answers.filter((res) => res.status === 404).length + refused.length, 200, 'every panel not refused was looked up (an unknown mbid: 404)');
  });

  it('names at most two albums of previews by mbid at once with eight waiting, and refuses the rest at once with 503 and Retry-After', async (t) => {
    const clock = new ManualClock();
    const { app, musicbrainz } = await startMetadataApp(t, { clock, metadata: { musicbrainz: { request_interval_ms: 1000 } } });
    const previews = collect(Array.from({ length: 40 }, (_, n) => api<Problem>(app.baseUrl, 'GET', `/api/v1/previews?mbid=${unknownMbid(n)}`)));
    const refused = await eventually(() => {
      const busy = previews.settled.filter((res) => res.status === 503);
      return busy.length >= 25 ? busy : undefined;
    }, 30_000, 'the previews past 2 namings running and 8 waiting refused');
    for (const res of refused) assertBusy(res);
    assert.ok(musicbrainz.answered.length <= 2, 'the refused ones never reached MusicBrainz');
    const answers = await runOnClock(clock, previews.all);
    // Counted on the final answers: refusals still in flight when the 25th arrived settle after that moment.
    const lookedUp = answers.filter((res) => res.status === 404).length;
    assert.equal(lookedUp + answers.filter((res) => res.status === 503).length, 40, 'every preview was looked up (an unknown mbid: 404) or refused');
  });

  it('answers a search past the waiting queue at once with 503 upstream-unavailable and Retry-After', async (t) => {
    const clock = new ManualClock();
    const { app, musicbrainz } = await startMetadataApp(t, { clock, metadata: { musicbrainz: { request_interval_ms: 1000 } } });
    const searches = collect(Array.from({ length: 30 }, (_, n) => api<Problem>(app.baseUrl, 'GET', `/api/v1/search?q=flood%20${n}`)));
    const refused = await eventually(() => {
      const busy = searches.settled.filter((res) => res.status === 503);
      return busy.length >= 10 ? busy : undefined;
    }, 30_000, 'the searches past 2 running and 16 waiting refused');
    for (const res of refused) assertBusy(res);
    assert.ok(musicbrainz.answered.length <= 2, 'the refused searches never reached MusicBrainz');
    const answers = await runOnClock(clock, searches.all);
    assert.equal(answers.filter((res) => res.status === 200).length + answers.filter((res) => res.status === 503).length, 30);
  });
});
