import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ReleaseGroupHit } from '@crateflow/sdk';
import { confidentMatch } from '../../../core/metadata/confident-match.js';

const hit = (mbid: string, title: string, artistCredit: string, score = 100): ReleaseGroupHit => ({
  mbid, title, artistCredit, score, primaryType: 'Album', secondaryTypes: [], firstReleaseDate: '2001', releaseCount: 1,
  artists: artistCredit.split(' & ').map((name, index) => ({ mbid: `artist-${index}`, name })),
});

describe('confidentMatch', () => {
  it('accepts the one hit scored 100 whose title and credit equal the names once normalised', () => {
    const hits = [hit('a', 'Geogaddi', 'Boards of Canada'), hit('b', 'Geogaddi Sessions', 'Boards of Canada', 86)];
    assert.equal(confidentMatch(hits, 'boards of canada', 'Geogaddi (Deluxe Edition)')?.mbid, 'a');
  });

  it('accepts a collaboration by one of its credited artists', () => {
    assert.equal(confidentMatch([hit('c', 'Watch the Throne', 'JAY-Z & Kanye West')], 'Kanye West', 'Watch the Throne')?.mbid, 'c');
  });

  it('refuses a score below 100, a different title or artist, and two equally good hits', () => {
    assert.equal(confidentMatch([hit('a', 'Geogaddi', 'Boards of Canada', 95)], 'Boards of Canada', 'Geogaddi'), undefined);
    assert.equal(confidentMatch([hit('a', 'Geogaddi', 'Boards of Canada')], 'Boards of Canada', 'Music Has the Right'), undefined);
    assert.equal(confidentMatch([hit('a', 'Geogaddi', 'Boards of Canada')], 'Tycho', 'Geogaddi'), undefined);
    assert.equal(confidentMatch([hit('a', 'Weezer', 'Weezer'), hit('b', 'Weezer', 'Weezer')], 'Weezer', 'Weezer'), undefined);
    assert.equal(confidentMatch([], 'Weezer', 'Weezer'), undefined);
  });
});
