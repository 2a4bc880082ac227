import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDuration } from '../../../core/config/parse-duration.js';

const DAY = 86_400_000;

describe('parseDuration', () => {
  it('reads each unit', () => {
    assert.deepEqual(['500ms', '30s', '5m', '6h', '1d'].map(parseDuration), [500, 30_000, 300_000, 21_600_000, DAY]);
  });

  it('reads schedules longer than one Node timer holds (2^31 − 1 ms) exactly', () => {
    assert.equal(parseDuration('30d'), 30 * DAY);
    assert.equal(parseDuration('365d'), 365 * DAY);
    assert.ok(parseDuration('30d') > 2 ** 31 - 1);
  });

  it('throws on text that is not a duration', () => {
    assert.throws(() => parseDuration('daily'), /"daily" is not a duration/);
  });
});
