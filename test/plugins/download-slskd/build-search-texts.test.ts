import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildSearchTexts } from '../../../plugins/download-slskd/build-search-texts.js';

describe('buildSearchTexts', () => {
  it('fills each template in order, turns punctuation into spaces and drops duplicates', () => {
    const item = { id: 'w1', artist: 'AC/DC', album: 'Back in Black', type: 'album' as const };
    assert.deepEqual(buildSearchTexts(['{artist} {album}', '{album}', '{album}'], item), ['AC DC Back in Black', 'Back in Black']);
  });

  it('skips templates whose placeholders the item cannot fill', () => {
    const item = { id: 'w1', artist: 'Low', album: 'Double Negative', type: 'album' as const };
    assert.deepEqual(buildSearchTexts(['{artist} {album} {year}', '{album}'], item), ['Double Negative']);
    assert.deepEqual(buildSearchTexts(['{artist} {album} {year}'], { ...item, year: 2018 }), ['Low Double Negative 2018']);
  });

  it('uses the title for a track', () => {
    const track = { id: 't1', artist: 'Low', title: 'Fly', type: 'track' as const };
    assert.deepEqual(buildSearchTexts(['{artist} {title}', '{artist} {album}'], track), ['Low Fly']);
  });
});
