import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSearchQuery } from '../../../core/search/parse-search-query.js';

describe('parseSearchQuery', () => {
  it('splits "Artist - Album" at a dash with spaces around it (hyphen, en or em dash)', () => {
    assert.deepEqual(parseSearchQuery('Boards of Canada - Geogaddi'), { artist: 'Boards of Canada', title: 'Geogaddi' });
    assert.deepEqual(parseSearchQuery('  Low – Double Negative '), { artist: 'Low', title: 'Double Negative' });
    assert.deepEqual(parseSearchQuery('Sigur Rós — ( )'), { artist: 'Sigur Rós', title: '( )' });
  });

  it('keeps hyphenated names whole and splits at the first separator only', () => {
    assert.deepEqual(parseSearchQuery('Jay-Z'), { title: 'Jay-Z' });
    assert.deepEqual(parseSearchQuery('A-ha - Hunting High and Low - Remastered'), { artist: 'A-ha', title: 'Hunting High and Low - Remastered' });
  });

  it('reads plain text, or a dash with nothing on one side, as a title', () => {
    assert.deepEqual(parseSearchQuery('Geogaddi'), { title: 'Geogaddi' });
    assert.deepEqual(parseSearchQuery('- Geogaddi'), { title: '- Geogaddi' });
    assert.deepEqual(parseSearchQuery('   '), { title: '' });
  });
});
