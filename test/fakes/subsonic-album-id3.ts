import type { FakeAlbum } from './generate-albums.js';

/**
 * Which real server the fake Subsonic imitates:
 * - `navidrome`: OpenSubsonic; the album version / album comment appended to `name`, several album artists
 *   joined with " • " in `artist` (Navidrome `model/album.go` FullName, `model/mediafile.go` appendSuffix,
 *   `consts/consts.go` ArtistJoiner, `server/subsonic/helpers.go` buildAlbumID3 / buildOSAlbumID3).
 * - `gonic`: OpenSubsonic; `name` is the plain title, `artist` is ONE album artist (the lowest database id),
 *   `displayArtist` the full credit, `version` the album comment (gonic `server/ctrlsubsonic/spec/construct_by_tags.go`
 *   NewAlbumByTags, `scanner/scanner.go` TagVersion from MusicBrainzAlbumComment).
 * - `plain`: a Subsonic/Airsonic without OpenSubsonic: `artist` is the ALBUMARTIST tag as written, nothing else.
 */
export type SubsonicFlavour = 'navidrome' | 'gonic' | 'plain';

type Payload = Record<string, unknown>;

/** The AlbumID3 object `flavour` serves for `album`; `openSubsonicFields` is false for Navidrome's legacy clients. */
export function albumId3(album: FakeAlbum, flavour: SubsonicFlavour, openSubsonicFields: boolean): Payload {
  const credited = album.albumArtists ?? [{ id: album.artistId, name: album.artist }];
  // gonic sorts the album's album-artist credits by artist id, puts the first one in `artist` and lists them all in
  // that order in `artists` (gonic `server/ctrlsubsonic/spec/construct_by_tags.go` NewAlbumByTags): a joint album's
  // artists come in the order the scanner first met them, not the credit's.
  const refs = flavour === 'gonic' ? [...credited].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)) : credited;
  const gonicFirst = refs[0];
  const artist = flavour === 'navidrome' ? navidromeArtist(album) : flavour === 'gonic' ? (gonicFirst?.name ?? album.artist) : album.artist;
  const artistId = flavour === 'gonic' ? (gonicFirst?.id ?? album.artistId) : album.artistId;
  const base: Payload = {
    id: album.id,
    name: flavour === 'navidrome' && album.version ? appendSuffix(album.name, album.version) : album.name,
    artist,
    artistId,
    coverArt: `al-${album.id}_0`,
    songCount: album.songCount,
    duration: album.durationSeconds,
    created: album.createdAt,
    year: album.year,
    genre: album.genre,
  };
  if (flavour === 'plain' || !openSubsonicFields) return base;
  return {
    ...base,
    // OpenSubsonic keys both servers always emit, empty when unknown.
    userRating: 0, genres: album.genre ? [{ name: album.genre }] : [], musicBrainzId: album.mbid ?? '',
    isCompilation: album.performers !== undefined, sortName: album.name.toLowerCase(), discTitles: [], originalReleaseDate: {},
    releaseDate: album.year ? { year: album.year } : {}, releaseTypes: [album.performers ? 'compilation' : 'album'], recordLabels: [], moods: [],
    artists: refs.map((ref) => ({ id: ref.id, name: ref.name })),
    // Navidrome: DisplayArtist = the joined album artist; gonic: the ALBUMARTIST credit as tagged.
    displayArtist: flavour === 'navidrome' ? navidromeArtist(album) : album.artist,
    explicitStatus: '',
    version: album.version ?? '',
  };
}

/** Navidrome's album artist display name: the album artists joined with its default " • " ArtistJoiner. */
function navidromeArtist(album: FakeAlbum): string {
  return album.albumArtists ? album.albumArtists.map((a) => a.name).join(' • ') : album.artist;
}

const CLOSING: Record<string, string> = { '(': ')', '[': ']', '{': '}' };

/** Navidrome's appendSuffix: a suffix already in brackets is appended as is, any other goes in parentheses. */
export function appendSuffix(base: string, suffix: string): string {
  const trimmed = suffix.trim();
  const closing = CLOSING[trimmed.charAt(0)];
  if (trimmed.length >= 2 && closing !== undefined && trimmed.endsWith(closing)) return `${base} ${trimmed}`;
  return `${base} (${trimmed})`;
}
