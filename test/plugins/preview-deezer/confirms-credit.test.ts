import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { confirmsCredit } from '../../../plugins/preview-deezer/confirms-credit.js';

// /album/{id} answers shaped as shared/reference/deezer-api.md §4: one `artist`, everyone in `contributors`.
const album = (artist: string, contributors?: string[]) => ({
  id: 1, title: 'Whatever', artist: { id: 2, name: artist, type: 'artist' },
  ...(contributors ? { contributors: contributors.map((name, i) => ({ id: 10 + i, name, type: 'artist', role: 'Main' })) } : {}),
});

describe('confirmsCredit', () => {
  it('confirms an album filed under one artist of the credit when the others contribute, in any credit order', () => {
    const filed = album('Boards of Canada', ['Boards of Canada', 'Autechre']);
    assert.equal(confirmsCredit(filed, 'Boards of Canada & Autechre'), true);
    assert.equal(confirmsCredit(filed, 'Autechre and Boards of Canada'), true);
  });

  it('refuses an album by an artist named like a part of the credit whose contributors lack the rest', () => {
    assert.equal(confirmsCredit(album('Simon', ['Simon']), 'Simon & Garfunkel'), false);
    assert.equal(confirmsCredit(album('Boards of Canada', ['Boards of Canada', 'Autechre']), 'Boards of Canada & Aphex Twin'), false);
    assert.equal(confirmsCredit(album('Autechre', ['Autechre']), 'Boards of Canada & Aphex Twin'), false, 'not filed under anyone of the credit');
  });

  it('trusts only the lead of the credit when Deezer sends no contributors', () => {
    assert.equal(confirmsCredit(album('Boards of Canada'), 'Boards of Canada & Autechre'), true);
    assert.equal(confirmsCredit(album('Autechre'), 'Boards of Canada & Autechre'), false);
    assert.equal(confirmsCredit({ id: 1 }, 'Boards of Canada & Autechre'), false);
  });
});
