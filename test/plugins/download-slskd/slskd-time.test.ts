import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { parseSlskdTime } from '../../../plugins/download-slskd/slskd-time.js';

describe('parseSlskdTime', () => {
  const original = process.env['TZ'];
  after(() => {
    if (original === undefined) delete process.env['TZ'];
    else process.env['TZ'] = original;
  });

  it('reads a time string without Z (as slskd returns them from SQLite) as UTC on a host in another zone', () => {
    // Node re-reads TZ when it changes, so this host now reads zone-less ISO strings as Oslo time.
    process.env['TZ'] = 'Europe/Oslo';
    assert.notEqual(Date.parse('2026-07-01T12:00:00'), Date.UTC(2026, 6, 1, 12), 'the trap: plain Date.parse reads it as local time');
    assert.equal(parseSlskdTime('2026-07-01T12:00:00.1234567'), Date.UTC(2026, 6, 1, 12, 0, 0, 123));
    assert.equal(parseSlskdTime('2026-07-01T12:00:00'), Date.UTC(2026, 6, 1, 12));
  });

  it('keeps an explicit Z or offset, and answers undefined for missing or unreadable text', () => {
    assert.equal(parseSlskdTime('2026-07-01T12:00:00.0000000Z'), Date.UTC(2026, 6, 1, 12));
    assert.equal(parseSlskdTime('2026-07-01T14:00:00+02:00'), Date.UTC(2026, 6, 1, 12));
    assert.equal(parseSlskdTime(undefined), undefined);
    assert.equal(parseSlskdTime(''), undefined);
    assert.equal(parseSlskdTime('soon'), undefined);
  });
});
