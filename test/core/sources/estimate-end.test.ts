import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { estimateEnd } from '../../../core/sources/estimate-end.js';

describe('estimateEnd', () => {
  it('projects the pace so far onto what is left', () => {
    // A quarter done in 60 s: three quarters take 180 s more.
    assert.equal(estimateEnd(0, 60_000, 25, 100), 240_000);
  });

  it('has no estimate before anything is done, or without a total', () => {
    assert.equal(estimateEnd(0, 60_000, 0, 100), undefined);
    assert.equal(estimateEnd(0, 60_000, 5, 0), undefined);
  });

  it('ends now once everything is done', () => {
    assert.equal(estimateEnd(0, 60_000, 100, 100), 60_000);
  });
});
