import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ReleaseGroupHit } from '@crateflow/sdk';
import { confidentMatch } from '../../../core/metadata/confident-match.js';

const hit = (title: string, artistCredit: string, score = 100, mbid = title): ReleaseGroupHit => ({
  mbid, title, primaryType: 'Album', secondaryTypes: [], firstReleaseDate: '2001', artistCredit,
  artists: artistCredit.split(' & ').map((name, i) => ({ mbid: `${mbid}-${i}`, name })), score, releaseCount: 1,
});

describe('confidentMatch', () => {
  it('takes a collaboration named in another order as the same credit', () => {
    const split = hit('Split Signals', 'Boards of Canada & Autechre');
    assert.equal(confidentMatch([split], 'Autechre & Boards of Canada', 'Split Signals'), split);
    assert.equal(confidentMatch([split], 'Autechre and Boards of Canada', 'split signals'), split);
  });

  it('guesses nothing for a namesake title by another artist, a score below 100, or two sure hits', () => {
    assert.equal(confidentMatch([hit('Split Signals', 'Autechre')], 'Boards of Canada', 'Split Signals'), undefined);
    assert.equal(confidentMatch([hit('Split Signals', 'Boards of Canada & Autechre', 99)], 'Boards of Canada & Autechre', 'Split Signals'), undefined);
    const twins = [hit('Low', 'Low', 100, 'a'), hit('Low', 'Low', 100, 'b')];
    assert.equal(confidentMatch(twins, 'Low', 'Low'), undefined);
  });
});
