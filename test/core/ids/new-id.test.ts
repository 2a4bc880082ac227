import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId } from '../../../core/ids/new-id.js';

describe('newId', () => {
  it('makes 22-character ids of its alphabet that sort by time and never repeat across refills of the random pool', () => {
    const at = Date.UTC(2026, 10, 28);
    // 5,000 ids use 60,000 random bytes: the 4 KiB pool is refilled 14 times.
    const ids = Array.from({ length: 5000 }, (_, i) => newId(at + i));
    for (const id of ids) assert.match(id, /^[0-9a-hjkmnp-tv-z]{22}$/);
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual([...ids].sort(), ids, 'later ids sort after earlier ones');
    const sameMoment = new Set(Array.from({ length: 5000 }, () => newId(at).slice(10)));
    assert.equal(sameMoment.size, 5000, 'ids made in the same millisecond differ in their random part');
  });
});
