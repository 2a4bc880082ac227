import type { LibraryAlbum } from '@crateflow/sdk';
import { arrayField, isRecord, numberField, stringField, type JsonRecord } from '@crateflow/sdk';

/** The credit MusicBrainz gives a compilation, and so the artist a wishlist item for one carries. */
const VARIOUS_ARTISTS = 'Various Artists';
/**
 * From this many album artists on, an album is taken for a compilation tagged without ALBUMARTIST, which
 * Jellyfin files under its track performers instead of "Various Artists". Collaborations credit two, rarely three.
 */
const COMPILATION_MIN_ARTISTS = 4;

/**
 * A MusicAlbum item as a LibraryAlbum, or undefined when it has no name. `ProviderIds` (present only when the
 * request asked for `Fields=ProviderIds`) carries `MusicBrainzAlbum` (the release id) and `MusicBrainzReleaseGroup`.
 *
 * Every `AlbumArtists` entry counts, not `AlbumArtist` alone (the first one): a collaboration lists each of its
 * artists, and a compilation without an ALBUMARTIST tag lists its track performers (`AudioFileProber.cs` falls
 * back to them, `AlbumMetadataService.cs` gathers them over the songs), so it is also filed under "Various Artists".
 */
export function toLibraryAlbum(item: JsonRecord): LibraryAlbum | undefined {
  const name = stringField(item, 'Name');
  if (!name) return undefined;
  const listed = arrayField(item, 'AlbumArtists').filter(isRecord).map((a) => stringField(a, 'Name') ?? '').filter((n) => n !== '');
  const performers = arrayField(item, 'Artists').filter((a): a is string => typeof a === 'string' && a !== '');
  const artist = stringField(item, 'AlbumArtist') || listed[0] || performers[0] || '';
  const each = [...new Set(listed)];
  const others = [...each];
  if (each.length > 1) others.push(joinAsCredit(each));
  if (each.length >= COMPILATION_MIN_ARTISTS) others.push(VARIOUS_ARTISTS);
  const artists = [...new Set(others)].filter((n) => n !== artist);
  const ids = isRecord(item['ProviderIds']) ? item['ProviderIds'] : {};
  const mbid = stringField(ids, 'MusicBrainzAlbum');
  const releaseGroup = stringField(ids, 'MusicBrainzReleaseGroup');
  const year = numberField(item, 'ProductionYear');
  return {
    artist,
    ...(artists.length > 0 ? { artists } : {}),
    album: name,
    ...(mbid ? { mbid } : {}),
    ...(releaseGroup ? { release_group_mbid: releaseGroup } : {}),
    ...(year !== undefined && Number.isInteger(year) && year > 0 ? { year } : {}),
  };
}

/** "A & B" for two names, "A, B & C" for more: MusicBrainz's usual join phrases, as a wishlist item carries them. */
function joinAsCredit(names: readonly string[]): string {
  if (names.length <= 2) return names.join(' & ');
  return `${names.slice(0, -1).join(', ')} & ${names[names.length - 1] ?? ''}`;
}
