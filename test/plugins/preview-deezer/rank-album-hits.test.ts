import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rankAlbumHits } from '../../../plugins/preview-deezer/rank-album-hits.js';

// Search hits shaped as /search/album answers them (shared/reference/deezer-api.md §3.1), most popular first.
const hit = (id: number, title: string, artist: string, recordType = 'album', explicit = false) => ({
  id, title, record_type: recordType, explicit_lyrics: explicit, artist: { id: id + 1, name: artist, type: 'artist' }, type: 'album',
});
const best = (hits: readonly unknown[], artist: string, album: string) => rankAlbumHits(hits, artist, album)[0];

describe('rankAlbumHits', () => {
  it('skips a louder tribute by another artist and a compilation of the same name for the album itself', () => {
    const hits = [hit(1, 'Daft Punk Epilogue', 'D3N5'), hit(2, 'Discovery', 'Daft Punk', 'compile'), hit(3, 'Discovery', 'Daft Punk')];
    assert.equal(best(hits, 'Daft Punk', 'Discovery')?.id, 3);
  });

  it('takes the compilation when it is the only hit with both names', () => {
    assert.equal(best([hit(2, 'Discovery', 'Daft Punk', 'compile')], 'Daft Punk', 'Discovery')?.id, 2);
  });

  it('compares normalised names: case, accents, a leading The and edition suffixes', () => {
    const hits = [hit(7, 'Ágætis byrjun (Remastered 2019)', 'Sigur Rós')];
    assert.equal(best(hits, 'sigur ros', 'Agaetis Byrjun')?.id, 7);
    assert.equal(best([hit(8, 'Boxer', 'The National')], 'National', 'boxer')?.id, 8);
  });

  it('keeps a hit filed under one artist of a collaboration, in any credit order, only as needing confirmation', () => {
    const hits = [hit(9, 'Watch the Throne', 'JAY-Z')];
    for (const credit of ['JAY-Z & Kanye West', 'Kanye West & JAY-Z', 'Kanye West, JAY-Z']) {
      assert.deepEqual([best(hits, credit, 'Watch the Throne')?.id, best(hits, credit, 'Watch the Throne')?.partOfCredit], [9, true], credit);
    }
    assert.equal(best([hit(10, 'Watch the Throne', 'Kanye West & JAY-Z')], 'JAY-Z & Kanye West', 'Watch the Throne')?.partOfCredit, false, 'the same artists in another order are the whole credit');
  });

  it('puts the whole credit before a same-named album by an artist named like a part of it, however popular', () => {
    const hits = [hit(1, 'Bookends', 'Simon'), hit(2, 'Bookends', 'Simon & Garfunkel')];
    assert.deepEqual(rankAlbumHits(hits, 'Simon & Garfunkel', 'Bookends').map((album) => [album.id, album.partOfCredit]), [[2, false], [1, true]]);
  });

  it('prefers the standard edition to a remaster to a deluxe one when the title names none, and the named one otherwise', () => {
    const hits = [hit(1, 'Boxer (Deluxe Edition)', 'The National', 'album', true), hit(2, 'Boxer (Remastered)', 'The National', 'album', true), hit(3, 'Boxer', 'The National', 'album', true)];
    assert.deepEqual(rankAlbumHits(hits, 'The National', 'Boxer').map((album) => album.id), [3, 2, 1]);
    assert.equal(best(hits, 'The National', 'Boxer (Deluxe Edition)')?.id, 1);
    assert.equal(best(hits, 'The National', 'Boxer [Deluxe]')?.id, 1);
  });

  it('prefers the explicit edition to the clean one of the same title, unless the title asks for the clean one', () => {
    const hits = [hit(1, 'DAMN.', 'Kendrick Lamar', 'album', false), hit(2, 'DAMN.', 'Kendrick Lamar', 'album', true)];
    assert.equal(best(hits, 'Kendrick Lamar', 'DAMN.')?.id, 2);
    assert.equal(best(hits, 'Kendrick Lamar', 'DAMN. (Clean)')?.id, 1);
  });

  it('finds nothing when no hit has both names, and ignores hits without an id or artist', () => {
    const hits = [hit(1, 'Discovery (Remixes)', 'Daft Punk'), hit(2, 'Discovery', 'Daft Punk Tribute Band'), hit(4, 'Discovery', 'Autechre'), { id: 3, title: 'Discovery' }, 'noise'];
    assert.deepEqual(rankAlbumHits(hits, 'Daft Punk', 'Discovery'), []);
    assert.deepEqual(rankAlbumHits(hits, 'Daft Punk & Boards of Canada', 'Discovery'), [], 'another artist is no part of the credit');
  });
});
