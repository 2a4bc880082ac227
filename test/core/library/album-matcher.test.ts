import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AlbumMatcher } from '../../../core/library/library-index.js';

describe('AlbumMatcher', () => {
  it('matches ids of every shape by their exact value', () => {
    const matcher = new AlbumMatcher();
    const ids = [
      '5ca1ab1e-0000-4000-8000-00000000002a',
      '5ca1ab1e-0000-4000-8000-00000000002b',
      'ffffffff-ffff-ffff-ffff-ffffffffffff',
      '00000000-0000-0000-0000-000000000000',
      'not-a-uuid',
      '5ca1ab1e-0000-4000-8000-00000000002g', // a UUID's shape, not its digits
      '5ca1ab1e+0000-4000-8000-00000000002a', // its digits, not its shape
      '\u00005ca1', // a value that starts like the packed form
    ];
    ids.forEach((mbid, i) => matcher.add({ artist: `A${i}`, album: `B${i}`, mbid }, i));
    ids.forEach((mbid, i) => assert.equal(matcher.find({ artist: 'other', album: 'other', mbid }), i, mbid));
    assert.equal(matcher.find({ artist: 'other', album: 'other', mbid: '5CA1AB1E-0000-4000-8000-00000000002A' }), 0, 'ids compare without case');
    assert.equal(matcher.find({ artist: 'other', album: 'other', mbid: '5ca1ab1e-0000-4000-8000-00000000002c' }), undefined);

    matcher.remove({ artist: 'A0', album: 'B0', mbid: ids[0] }, 0);
    assert.equal(matcher.find({ artist: 'other', album: 'other', mbid: ids[0] }), undefined);
    assert.equal(matcher.find({ artist: 'A1', album: 'B1' }), 1, 'by name as well');
  });
});
