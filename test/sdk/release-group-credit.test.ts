import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isKnownUnderCredit, releaseGroupCredit, type KnownAs } from '@crateflow/sdk';

describe('releaseGroupCredit', () => {
  it('prints the credit MusicBrainz sends, else the credited artists joined, else the artist it was found under', () => {
    const artists = [{ mbid: 'a', name: 'Boards of Canada' }, { mbid: 'b', name: 'Autechre' }];
    assert.equal(releaseGroupCredit({ artistCredit: 'Boards of Canada & Autechre', artists }, 'Boards of Canada'), 'Boards of Canada & Autechre');
    assert.equal(releaseGroupCredit({ artistCredit: undefined, artists }, 'Boards of Canada'), 'Boards of Canada & Autechre');
    assert.equal(releaseGroupCredit({ artistCredit: undefined, artists: [] }, 'Boards of Canada'), 'Boards of Canada');
  });
});

describe('isKnownUnderCredit', () => {
  it('asks by mbid and the whole credit, then under the artist the album was found under', () => {
    const asked: string[] = [];
    const knownUnder = (owner: string) => ({
      known: (candidate: { mbid?: string; artist: string; album?: string }): KnownAs | undefined => {
        asked.push(`${candidate.mbid ?? '-'}|${candidate.artist}`);
        return candidate.artist === owner ? 'library' : undefined;
      },
    });
    const album = { mbid: 'm1', album: 'Split', credit: 'Boards of Canada & Autechre', foundUnder: 'Boards of Canada' };
    assert.equal(isKnownUnderCredit(knownUnder('Boards of Canada'), album), true, 'a library that files it under one artist');
    assert.deepEqual(asked, ['m1|Boards of Canada & Autechre', '-|Boards of Canada']);
    assert.equal(isKnownUnderCredit(knownUnder('Nobody'), album), false);
    asked.length = 0;
    assert.equal(isKnownUnderCredit(knownUnder('Nobody'), { ...album, credit: 'Boards of Canada' }), false);
    assert.deepEqual(asked, ['m1|Boards of Canada'], 'one question when the credit is the artist it was found under');
  });
});
