/**
 * Deterministic album data shared by the Subsonic and Jellyfin fakes. The same inputs always give the same
 * names, ids and MusicBrainz ids, so a test can compute what a library "contains" without storing fixtures.
 */
export interface FakeAlbum {
  /** Server-side item id: 32 lowercase hex digits (Jellyfin's "N" GUID form; opaque to Subsonic clients). */
  readonly id: string;
  readonly name: string;
  /** Album artist display name. */
  readonly artist: string;
  readonly artistId: string;
  readonly year?: number;
  readonly genre?: string;
  readonly songCount: number;
  readonly durationSeconds: number;
  /** ISO 8601, when the album was added to the library. */
  readonly createdAt: string;
  /** MusicBrainz release id (dashed UUID); absent for untagged albums. */
  readonly mbid?: string;
  readonly releaseGroupMbid?: string;
  readonly artistMbid?: string;
  /**
   * The album artists, one by one, when the album credits several (a collaboration); `artist` is then the
   * credit as the ALBUMARTIST tag spells it ("A & B"). Absent for a one-artist album.
   */
  readonly albumArtists?: readonly { readonly id: string; readonly name: string }[];
  /** The album version or MusicBrainz album comment (`MUSICBRAINZ_ALBUMCOMMENT`, written by Picard). */
  readonly version?: string;
  /**
   * A compilation ripped without an ALBUMARTIST tag: its track performers, most frequent first. `artist` is
   * "Various Artists", the credit MusicBrainz (and so a wishlist item) gives it.
   */
  readonly performers?: readonly string[];
}

export interface GenerateAlbumsOptions {
  /** Albums per artist (default 5). */
  readonly albumsPerArtist?: number;
  /** Every n-th album (1-based) has no MusicBrainz ids and no year, like an untagged rip. 0 = all tagged (default). */
  readonly untaggedEvery?: number;
  /** Changes every generated value while keeping the output deterministic (default 1). */
  readonly seed?: number;
  /** Every n-th album (1-based) is a collaboration of its artist and a guest (default 0 = none). */
  readonly collaborationEvery?: number;
  /** Every n-th album carries an album version / album comment (default 0 = none). */
  readonly versionEvery?: number;
  /** Every n-th album is a compilation without an ALBUMARTIST tag (default 0 = none). */
  readonly compilationEvery?: number;
}

const FIRST = ['Amber', 'Black', 'Crystal', 'Distant', 'Electric', 'Faded', 'Golden', 'Hollow', 'Iron', 'Jade',
  'Kind', 'Lunar', 'Midnight', 'Northern', 'Opal', 'Paper', 'Quiet', 'Red', 'Silver', 'Tidal', 'Ultra', 'Velvet',
  'Wild', 'Young', 'Zephyr', 'Café', 'Señor', 'Ørsted', 'Über', 'Élan'];
const SECOND = ['Anchors', 'Birds', 'Canyons', 'Drums', 'Engines', 'Foxes', 'Ghosts', 'Harbors', 'Islands', 'Jets',
  'Kites', 'Lanterns', 'Mirrors', 'Needles', 'Oceans', 'Pilots', 'Queens', 'Rivers', 'Saints', 'Tigers', 'Unicorns',
  'Valleys', 'Wolves', 'Xylophones', 'Yachts', 'Zebras', 'Cœurs', 'Niños', 'Söhne', 'Brûlée'];
const ADJECTIVES = ['Endless', 'Broken', 'Bright', 'Cold', 'Dark', 'Early', 'Final', 'Gentle', 'Heavy', 'Inner',
  'Last', 'Lost', 'Modern', 'New', 'Old', 'Open', 'Pale', 'Secret', 'Slow', 'Sweet', 'True', 'Wide', 'Blue', 'Small'];
const NOUNS = ['Summer', 'Light', 'Hours', 'Signals', 'Gardens', 'Horizons', 'Letters', 'Machines', 'Nights',
  'Rooms', 'Shadows', 'Songs', 'Stories', 'Streets', 'Waves', 'Winter', 'Years', 'Dreams', 'Fields', 'Fires'];
const GENRES = ['Rock', 'Electronic', 'Jazz', 'Pop', 'Folk', 'Hip-Hop', 'Classical', 'Ambient'];
const CREATED_BASE_MS = Date.UTC(2024, 0, 1);
// Album comments as Picard writes them from MusicBrainz disambiguations: none of them is an edition word that
// normalizeName drops, so only a plugin that knows where the server put them can match the album.
const VERSIONS = ['Japanese release', 'OKNOTOK 1997 2017', 'Hybrid SACD', 'Canadian pressing', 'MFSL gold CD'];
const VARIOUS_ARTISTS = 'Various Artists';

/** Returns `count` albums; albums of one artist are adjacent and their names are distinct. Cheap for 50,000+. */
export function generateAlbums(count: number, options: GenerateAlbumsOptions = {}): FakeAlbum[] {
  const perArtist = Math.max(1, options.albumsPerArtist ?? 5);
  const untaggedEvery = options.untaggedEvery ?? 0;
  const seed = options.seed ?? 1;
  const hex32 = hexer(seed);
  const albums: FakeAlbum[] = [];
  let artist = { index: -1, base: 0, name: '', id: '', mbid: '' };
  for (let i = 0; i < count; i++) {
    const artistIndex = Math.floor(i / perArtist);
    const nth = i % perArtist;
    if (artist.index !== artistIndex) {
      const base = mix(seed, artistIndex, 1);
      artist = { index: artistIndex, base, name: artistName(artistIndex), id: hex32(artistIndex, 20), mbid: uuid(hex32(artistIndex, 50)) };
    }
    const albumHash = mix(seed, i, 2);
    const untagged = untaggedEvery > 0 && (i + 1) % untaggedEvery === 0;
    const songCount = 6 + (albumHash % 12);
    const every = (n: number | undefined): boolean => (n ?? 0) > 0 && (i + 1) % (n ?? 1) === 0;
    const guestIndex = artistIndex + 1 + (albumHash % 97);
    const credit = every(options.compilationEvery)
      ? { artist: VARIOUS_ARTISTS, artistId: hex32(0, 60), performers: [0, 1, 2, 3].map((k) => artistName(guestIndex + k * 13)) }
      : every(options.collaborationEvery)
        ? {
            artist: `${artist.name} & ${artistName(guestIndex)}`,
            artistId: artist.id,
            albumArtists: [{ id: artist.id, name: artist.name }, { id: hex32(guestIndex, 20), name: artistName(guestIndex) }],
          }
        : { artist: artist.name, artistId: artist.id };
    const album: FakeAlbum = {
      id: hex32(i, 10),
      name: `${pick(ADJECTIVES, albumHash >>> 8)} ${pick(NOUNS, artist.base + nth)}${nth >= NOUNS.length ? ` ${nth + 1}` : ''}`,
      ...credit,
      ...(every(options.versionEvery) ? { version: pick(VERSIONS, albumHash >>> 12) } : {}),
      songCount,
      durationSeconds: songCount * (150 + (albumHash % 150)),
      createdAt: new Date(CREATED_BASE_MS + i * 60_000).toISOString(),
      ...(untagged
        ? {}
        : {
            year: 1960 + (albumHash % 64),
            genre: pick(GENRES, albumHash >>> 4),
            mbid: uuid(hex32(i, 30)),
            releaseGroupMbid: uuid(hex32(i, 40)),
            artistMbid: artist.mbid,
          }),
    };
    albums.push(album);
  }
  return albums;
}

function artistName(index: number): string {
  const first = pick(FIRST, index);
  const second = pick(SECOND, Math.floor(index / FIRST.length));
  const round = Math.floor(index / (FIRST.length * SECOND.length));
  return round === 0 ? `${first} ${second}` : `${first} ${second} ${round + 1}`;
}

function pick(list: readonly string[], n: number): string {
  return list[Math.abs(n) % list.length] ?? '';
}

/** A 32-bit integer hash (murmur3 finaliser) of three inputs: fast and well spread, not cryptographic. */
function mix(a: number, b: number, c: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x7f4a7c15, 0xc2b2ae35) ^ Math.imul(c, 0x27d4eb2f);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * Returns a function giving 32 hex digits from four hashes. Writing into one reused buffer and hex-encoding it
 * natively is several times faster than building the string in JS.
 */
function hexer(seed: number): (n: number, salt: number) => string {
  const scratch = Buffer.alloc(16);
  return (n, salt) => {
    for (let k = 0; k < 4; k++) scratch.writeUInt32BE(mix(seed, n, salt + k), k * 4);
    return scratch.toString('hex');
  };
}

/** Formats 32 hex digits as a version-4-looking dashed UUID, like a MusicBrainz id. */
function uuid(hex: string): string {
  const variant = ((parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
