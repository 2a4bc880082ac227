import type { LibraryAlbum } from '@crateflow/sdk';
import { arrayField, booleanField, isRecord, numberField, stringField, type JsonRecord } from '@crateflow/sdk';
import { creditsOf } from './credits-of.js';

/**
 * An AlbumID3 as a LibraryAlbum, or undefined when it has no name. `musicBrainzId` (the release id) is only
 * sent by OpenSubsonic servers, as `""` when unknown; without it the core matches by normalised artist + album,
 * so the name and the artists must be the ones a wishlist item carries, whatever the server did to them:
 * - Navidrome appends the album version or MusicBrainz album comment to `name` ("OK Computer (OKNOTOK 1997
 *   2017)", `model/album.go` FullName) and sends the appended part as `version`: the plain title is `name`
 *   without it.
 * - Navidrome joins several album artists with " • " in `artist`; gonic puts one of them in `artist` and the
 *   credit in `displayArtist`; both list them one by one in the OpenSubsonic `artists`. Every one counts.
 */
export function toLibraryAlbum(album: JsonRecord): LibraryAlbum | undefined {
  const name = stringField(album, 'name');
  if (!name) return undefined;
  const display = stringField(album, 'displayArtist') || stringField(album, 'artist') || '';
  const listed = arrayField(album, 'artists').filter(isRecord).map((ref) => stringField(ref, 'name') ?? '').filter((n) => n !== '');
  const names = creditsOf(display, stringField(album, 'artist') ?? '', listed, booleanField(album, 'isCompilation') === true);
  const mbid = stringField(album, 'musicBrainzId');
  const year = numberField(album, 'year');
  return {
    artist: display,
    ...(names.length > 0 ? { artists: names } : {}),
    album: withoutAppendedVersion(name, stringField(album, 'version') ?? ''),
    ...(mbid ? { mbid } : {}),
    ...(year !== undefined && Number.isInteger(year) && year > 0 ? { year } : {}),
  };
}

const CLOSING: Record<string, string> = { '(': ')', '[': ']', '{': '}' };

/**
 * `name` without the version Navidrome appended to it: " (version)", or " version" when the version is already
 * bracketed (Navidrome `model/mediafile.go` appendSuffix). gonic sends the plain title with the album comment
 * in `version`; nothing is appended there, so nothing is taken off.
 */
export function withoutAppendedVersion(name: string, version: string): string {
  const suffix = version.trim();
  if (suffix === '') return name;
  const closing = CLOSING[suffix.charAt(0)];
  const appended = suffix.length >= 2 && closing !== undefined && suffix.endsWith(closing) ? ` ${suffix}` : ` (${suffix})`;
  const plain = name.endsWith(appended) ? name.slice(0, -appended.length).trim() : name;
  return plain === '' ? name : plain;
}
