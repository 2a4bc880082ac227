import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pickAlbum } from '../../../plugins/preview-deezer/pick-album.js';

// Search hits shaped as /search/album answers them (shared/reference/deezer-api.md §3.1), most popular first.
const hit = (id: number, title: string, artist: string, recordType = 'album') => ({ id, title, record_type: recordType, artist: { id: id + 1, name: artist, type: 'artist' }, type: 'album' });

describe('pickAlbum', () => {
  it('skips a louder tribute by another artist and a compilation of the same name for the album itself', () => {
    const hits = [hit(1, 'Daft Punk Epilogue', 'D3N5'), hit(2, 'Discovery', 'Daft Punk', 'compile'), hit(3, 'Discovery', 'Daft Punk')];
    assert.equal(pickAlbum(hits, 'Daft Punk', 'Discovery')?.id, 3);
  });

  it('takes the compilation when it is the only hit with both names', () => {
    assert.equal(pickAlbum([hit(2, 'Discovery', 'Daft Punk', 'compile')], 'Daft Punk', 'Discovery')?.id, 2);
  });

  it('compares normalised names: case, accents, a leading The and edition suffixes', () => {
    const hits = [hit(7, 'Ágætis byrjun (Remastered 2019)', 'Sigur Rós')];
    assert.equal(pickAlbum(hits, 'sigur ros', 'Agaetis Byrjun')?.id, 7);
    assert.equal(pickAlbum([hit(8, 'Boxer', 'The National')], 'National', 'boxer')?.id, 8);
  });

  it('matches a collaboration credited to its lead artist only', () => {
    assert.equal(pickAlbum([hit(9, 'Watch the Throne', 'JAY-Z')], 'JAY-Z & Kanye West', 'Watch the Throne')?.id, 9);
  });

  it('finds nothing when no hit has both names, and ignores hits without an id or artist', () => {
    const hits = [hit(1, 'Discovery (Remixes)', 'Daft Punk'), hit(2, 'Discovery', 'Daft Punk Tribute Band'), { id: 3, title: 'Discovery' }, 'noise'];
    assert.equal(pickAlbum(hits, 'Daft Punk', 'Discovery'), undefined);
  });
});
