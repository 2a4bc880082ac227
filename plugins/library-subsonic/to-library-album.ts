import type { LibraryAlbum } from '@crateflow/sdk';
import { numberField, stringField, type JsonRecord } from '@crateflow/sdk';

/**
 * An AlbumID3 as a LibraryAlbum, or undefined when it has no name. `musicBrainzId` (the release id) is only
 * sent by OpenSubsonic servers, as `""` when unknown; without it the core matches by normalised artist + album.
 */
export function toLibraryAlbum(album: JsonRecord): LibraryAlbum | undefined {
  const name = stringField(album, 'name');
  if (!name) return undefined;
  const artist = stringField(album, 'artist') || stringField(album, 'displayArtist') || '';
  const mbid = stringField(album, 'musicBrainzId');
  const year = numberField(album, 'year');
  return {
    artist,
    album: name,
    ...(mbid ? { mbid } : {}),
    ...(year !== undefined && Number.isInteger(year) && year > 0 ? { year } : {}),
  };
}
