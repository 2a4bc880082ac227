import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { batchDestination } from '../../../plugins/download-slskd/batch-destination.js';
import { atLeast } from '../../../plugins/download-slskd/slskd-version.js';

describe('batchDestination', () => {
  it('names one folder per download, Artist - Album [ref], free of characters any slskd host would change', () => {
    assert.equal(batchDestination({ id: 'w', artist: 'Portishead', album: 'Dummy', type: 'album' }, 'dl_7'), 'Portishead - Dummy [dl_7]');
    assert.equal(batchDestination({ id: 'w', artist: 'AC/DC', album: 'Who Made Who?: "Live"', type: 'album' }, 'r1'), 'AC_DC - Who Made Who__ _Live_ [r1]');
    assert.equal(batchDestination({ id: 'w', artist: '..', album: 'x', type: 'album' }, 'r2'), '_ - x [r2]', 'never a hidden or traversal segment');
  });
});

describe('atLeast (slskd version)', () => {
  it('knows which slskd versions take batches with options.destination (0.26.0 and later)', () => {
    assert.equal(atLeast('0.26.0', [0, 26]), true);
    assert.equal(atLeast('0.26.1.65534-4b2f1e', [0, 26]), true);
    assert.equal(atLeast('1.0.0', [0, 26]), true);
    assert.equal(atLeast('0.25.1', [0, 26]), false);
    assert.equal(atLeast('0.22.5', [0, 26]), false);
    assert.equal(atLeast('', [0, 26]), false, 'an unreadable version is treated as old (collision checks apply)');
  });
});
