import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isInWindow, releaseWindow } from '../../../plugins/source-new-releases/release-window.js';

const NOW = Date.parse('2026-10-05T08:00:00.000Z');

describe('releaseWindow and isInWindow', () => {
  it('reaches first_run_days back on the first run, and to the last completed run less the overlap later', () => {
    assert.deepEqual(releaseWindow(NOW, undefined, 90, 14), { since: '2026-07-07', until: '2026-10-05' });
    assert.deepEqual(releaseWindow(NOW, '2026-10-01T03:00:00.000Z', 90, 14), { since: '2026-09-17', until: '2026-10-05' });
  });

  it('compares a date at its own precision, skips empty dates and dates after today', () => {
    const window = { since: '2026-09-17', until: '2026-10-05' };
    assert.equal(isInWindow('2026-10-03', window), true);
    assert.equal(isInWindow('2026-09', window), true);
    assert.equal(isInWindow('2026', window), true);
    assert.equal(isInWindow('2026-09-16', window), false);
    assert.equal(isInWindow('2026-10-06', window), false, 'not released yet');
    assert.equal(isInWindow('2025', window), false);
    assert.equal(isInWindow('', window), false);
    assert.equal(isInWindow(undefined, window), false);
  });
});
