import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SimilarityTally, similarityText } from '../../../plugins/source-similar-artists/similarity-tally.js';

const LOW = { name: 'Low', mbid: '11111111-1111-4111-a111-111111111111' };
const DUSTER = '22222222-2222-4222-a222-222222222222';

describe('SimilarityTally', () => {
  it('sums similarity across seeds, so an artist similar to many seeds outranks one very similar to one', () => {
    const tally = new SimilarityTally();
    tally.add(LOW, [{ mbid: DUSTER, name: 'Duster', similarity: 0.5 }, { mbid: null, name: 'Once Only', similarity: 1 }]);
    tally.add({ name: 'Codeine', mbid: null }, [{ mbid: DUSTER, name: 'Duster', similarity: 0.4 }]);
    tally.add({ name: 'Slowdive', mbid: null }, [{ mbid: DUSTER, name: 'Duster', similarity: 0.3 }]);
    const ranked = tally.ranked();
    assert.deepEqual(ranked.map((entry) => [entry.name, Math.round(entry.total * 10) / 10]), [['Duster', 1.2], ['Once Only', 1]]);
    assert.equal(similarityText(ranked[0] ?? { mbid: null, name: null, total: 0, seeds: [] }), 'similar to Low, Codeine (+1)');
  });

  it('joins a name-only row (Last.fm mbid "") to the MBID entry of the same normalised name', () => {
    const tally = new SimilarityTally();
    tally.add(LOW, [{ mbid: DUSTER, name: 'Duster', similarity: 0.6 }]);
    tally.add({ name: 'Codeine', mbid: null }, [{ mbid: null, name: 'duster', similarity: 0.7 }]);
    const ranked = tally.ranked();
    assert.equal(ranked.length, 1);
    assert.equal(ranked[0]?.mbid, DUSTER);
    assert.equal(similarityText(ranked[0] ?? { mbid: null, name: null, total: 0, seeds: [] }), 'similar to Codeine, Low');
  });
});
