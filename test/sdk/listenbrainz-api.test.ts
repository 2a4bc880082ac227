import { createHttpClient, isNotFoundError, isRetryLaterError, ListenBrainzApi } from '@crateflow/sdk';
import { ManualClock } from '@crateflow/sdk/testing';
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { startFakeListenBrainz, type FakeListenBrainz } from '../fakes/fake-listenbrainz.js';

async function setUp(t: TestContext, rateLimit: number, rateLimitWindowSeconds?: number) {
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 0, 0, 3));
  const fake: FakeListenBrainz = await startFakeListenBrainz({ clock, rateLimit, ...(rateLimitWindowSeconds === undefined ? {} : { rateLimitWindowSeconds }) });
  const http = createHttpClient({ userAgent: 'crateflow-test', defaultTimeoutMs: 2000 });
  t.after(() => Promise.all([fake.close(), http.close()]));
  const api = new ListenBrainzApi({ http, clock, baseUrl: fake.url, token: undefined, timeoutMs: 2000 });
  return { clock, fake, api, signal: new AbortController().signal };
}

/** Awaits `work`, moving the manual clock to each timer it sets (the wait for a rate-limit window). */
async function onClock<T>(clock: ManualClock, work: Promise<T>): Promise<T> {
  let done = false;
  const settled = work.finally(() => {
    done = true;
  });
  settled.catch(() => undefined);
  while (!done) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (!done && clock.pendingTimers > 0) await clock.advance(10_000);
  }
  return settled;
}

describe('ListenBrainzApi (similar-artists)', () => {
  it('waits for the window to reset when X-RateLimit-Remaining reaches 0, instead of earning a 429', async (t) => {
    const { clock, fake, api, signal } = await setUp(t, 2);
    const start = clock.now();
    for (let i = 0; i < 5; i++) await onClock(clock, api.get('1/stats/user/rob/artists', { count: '1' }, signal));
    assert.equal(fake.received.length, 5);
    assert.ok(clock.now() - start >= 10_000, 'it waited at least one window');
  });

  it('waits 5 minutes at most for a window that resets years later, and says so in the 429\'s retry hint', async (t) => {
    const { clock, fake, api } = await setUp(t, 1, 1e9);
    // Aborted at the end, so a wait that was not capped ends with the test instead of holding it open.
    const run = new AbortController();
    t.after(() => run.abort());
    await api.get('1/stats/user/rob/artists', { count: '1' }, run.signal);
    const second = api.get('1/stats/user/rob/artists', { count: '1' }, run.signal);
    second.catch(() => undefined);
    await clock.advance(5 * 60_000 - 1);
    assert.equal(fake.received.length, 1, 'the second request waits for the window');
    await clock.advance(1);
    assert.equal(clock.pendingTimers, 0, 'the wait ended after 5 minutes');
    // The window has not reset (it is 1e9 s long): the fake answers 429, whose reset hint is capped the same way.
    await assert.rejects(second, (err: unknown) => isRetryLaterError(err) && err.retryAfterMs === 5 * 60_000);
    assert.equal(fake.received.length, 2);
  });

  it('reads a 204 as undefined, an unknown user as NotFoundError, a 500 and a 429 as RetryLaterError (the 429 with the reset time)', async (t) => {
    const { api, signal } = await setUp(t, 30);
    assert.equal(await api.get('1/stats/user/newbie/artists', {}, signal), undefined);
    await assert.rejects(api.get('1/stats/user/nobody/artists', {}, signal), (err: unknown) => isNotFoundError(err) && /Cannot find user: nobody/.test(err.message));
    // A server-side failure (a stored row it cannot read) is for later, with the server's own words.
    await assert.rejects(api.get('1/cf/recommendation/user/broken/recording', {}, signal), (err: unknown) => isRetryLaterError(err) && /\(500\): An unknown error occured\./.test(err.message));
    const limited = await setUp(t, 0);
    await assert.rejects(limited.api.get('1/stats/user/rob/artists', {}, limited.signal), (err: unknown) => isRetryLaterError(err) && err.retryAfterMs === 7000);
  });
});
