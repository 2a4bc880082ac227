import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FailedLoginLimiter } from '../../../core/auth/failed-login-limiter.js';
import { ManualClock } from '../../helpers/manual-clock.js';

describe('FailedLoginLimiter', () => {
  it('refuses a client after maxFailures within the window until the oldest failure leaves it', async () => {
    const clock = new ManualClock();
    const limiter = new FailedLoginLimiter(clock, { maxFailures: 3, windowMs: 60_000, maxClients: 100 });
    limiter.recordFailure('a');
    await clock.advance(10_000);
    limiter.recordFailure('a');
    limiter.recordFailure('a');
    assert.equal(limiter.retryAfterSeconds('a'), 50);
    assert.equal(limiter.retryAfterSeconds('b'), 0, 'another client is not affected');
    await clock.advance(50_000);
    assert.equal(limiter.retryAfterSeconds('a'), 0);
  });

  it('forgets a client’s failures after a success', () => {
    const limiter = new FailedLoginLimiter(new ManualClock(), { maxFailures: 2, windowMs: 60_000, maxClients: 100 });
    limiter.recordFailure('a');
    limiter.recordSuccess('a');
    limiter.recordFailure('a');
    assert.equal(limiter.retryAfterSeconds('a'), 0);
  });

  it('tracks at most maxClients addresses, dropping the stalest', () => {
    const limiter = new FailedLoginLimiter(new ManualClock(), { maxFailures: 1, windowMs: 60_000, maxClients: 2 });
    for (const client of ['a', 'b', 'c']) limiter.recordFailure(client);
    assert.deepEqual(['a', 'b', 'c'].map((c) => limiter.retryAfterSeconds(c) > 0), [false, true, true]);
  });

  it('counts reserved attempts against the limit until they end, and frees a released one', () => {
    const limiter = new FailedLoginLimiter(new ManualClock(), { maxFailures: 2, windowMs: 60_000, maxClients: 100 });
    assert.equal(limiter.reserve('a'), 0);
    assert.equal(limiter.reserve('a'), 0);
    assert.equal(limiter.reserve('a'), 1, 'two checks in flight fill the limit of 2');
    limiter.release('a');
    assert.equal(limiter.reserve('a'), 0, 'a check without verdict gives its attempt back');
    limiter.recordFailure('a');
    limiter.recordSuccess('a');
    assert.equal(limiter.reserve('a'), 0, 'a success clears the failures');
  });
});
