import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_HONOURED_RETRY_AFTER_MS, retryAfterMs } from '../../../core/metadata/retry-after.js';

describe('retryAfterMs', () => {
  const now = Date.parse('2026-03-18T12:00:00Z');

  it('reads delta-seconds, including the 0 MusicBrainz sends when shedding load', () => {
    assert.equal(retryAfterMs('1', now), 1000);
    assert.equal(retryAfterMs(' 0 ', now), 0);
  });

  it('reads an HTTP date as the time left until it, never negative', () => {
    assert.equal(retryAfterMs('Wed, 18 Mar 2026 12:00:30 GMT', now), 30_000);
    assert.equal(retryAfterMs('Wed, 18 Mar 2026 11:00:00 GMT', now), 0);
  });

  it('honours five minutes at most, however long the header asks for', () => {
    assert.equal(MAX_HONOURED_RETRY_AFTER_MS, 5 * 60 * 1000);
    assert.equal(retryAfterMs('300', now), MAX_HONOURED_RETRY_AFTER_MS);
    assert.equal(retryAfterMs('999999999', now), MAX_HONOURED_RETRY_AFTER_MS);
    assert.equal(retryAfterMs('Fri, 01 Jan 2100 00:00:00 GMT', now), MAX_HONOURED_RETRY_AFTER_MS);
  });

  it('answers undefined for a missing or unreadable header', () => {
    assert.equal(retryAfterMs(undefined, now), undefined);
    assert.equal(retryAfterMs('soon', now), undefined);
    assert.equal(retryAfterMs('-5', now), undefined);
  });
});
