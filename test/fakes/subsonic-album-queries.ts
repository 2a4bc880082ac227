import type { FakeAlbum } from './generate-albums.js';

/** What getAlbumList2 needs besides paging; `error` carries Navidrome's code and message for a bad request. */
export type AlbumListSelection = { readonly albums: readonly FakeAlbum[] } | { readonly error: { readonly code: number; readonly message: string } };

export interface ArtistSummary {
  readonly id: string;
  readonly name: string;
  readonly albumCount: number;
  readonly mbid: string;
}

/**
 * The albums getAlbumList2 pages over, in Navidrome's order. The fake library has no plays, ratings or stars,
 * so `highest`, `frequent`, `recent` and `starred` are empty, as they are on a fresh Navidrome.
 */
export class SubsonicAlbumQueries {
  private readonly sorted = new Map<string, readonly FakeAlbum[]>();
  private artistList: ArtistSummary[] | undefined;

  constructor(private readonly albums: readonly FakeAlbum[]) {}

  select(params: URLSearchParams): AlbumListSelection {
    const type = params.get('type');
    if (!type) return missing('type');
    switch (type) {
      case 'alphabeticalByName':
        return { albums: this.sortedBy(type, (a) => `${a.name.toLowerCase()}\u0000${a.artist.toLowerCase()}`) };
      case 'alphabeticalByArtist':
        return { albums: this.sortedBy(type, (a) => `${a.artist.toLowerCase()}\u0000${a.name.toLowerCase()}`) };
      case 'newest':
        return { albums: this.sortedBy(type, (a) => a.createdAt).slice().reverse() };
      case 'random':
        return { albums: shuffle(this.albums) };
      case 'highest': case 'frequent': case 'recent': case 'starred':
        return { albums: [] };
      case 'byYear': {
        if (!params.has('fromYear')) return missing('fromYear');
        if (!params.has('toYear')) return missing('toYear');
        const from = Number(params.get('fromYear'));
        const to = Number(params.get('toYear'));
        const low = Math.min(from, to);
        const high = Math.max(from, to);
        const inRange = this.sortedBy('byYear', (a) => String(a.year ?? 0).padStart(4, '0')).filter((a) => a.year !== undefined && a.year >= low && a.year <= high);
        return { albums: from > to ? inRange.reverse() : inRange };
      }
      case 'byGenre': {
        const genre = params.get('genre');
        if (genre === null) return missing('genre');
        return { albums: this.albums.filter((a) => a.genre?.toLowerCase() === genre.toLowerCase()) };
      }
      default:
        return { error: { code: 0, message: `type '${type}' not implemented` } };
    }
  }

  /** search3's matching, per Navidrome: empty query = everything; a UUID matches MusicBrainz ids. */
  search(rawQuery: string | null): { artists: readonly ArtistSummary[]; albums: readonly FakeAlbum[] } {
    const query = normalize(rawQuery ?? '').replace(/\*$/, '').trim();
    if (query === '' || query === '""') return { artists: this.artists(), albums: this.albums };
    if (query.length === 1) return { artists: [], albums: [] };
    if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(query)) {
      return {
        artists: this.artists().filter((artist) => artist.mbid === query),
        albums: this.albums.filter((a) => a.mbid === query || a.releaseGroupMbid === query),
      };
    }
    const terms = query.split(/\s+/);
    const matches = (text: string): boolean => {
      const words = normalize(text).split(/[^\p{L}\p{N}]+/u);
      return terms.every((term) => words.some((word) => word.startsWith(term)));
    };
    return {
      artists: this.artists().filter((artist) => matches(artist.name)),
      albums: this.albums.filter((album) => matches(`${album.artist} ${album.name}`)),
    };
  }

  /** Album artists in library order, with their album counts. */
  artists(): ArtistSummary[] {
    if (this.artistList) return this.artistList;
    const byId = new Map<string, { id: string; name: string; albumCount: number; mbid: string }>();
    for (const album of this.albums) {
      const known = byId.get(album.artistId);
      if (known) known.albumCount++;
      else byId.set(album.artistId, { id: album.artistId, name: album.artist, albumCount: 1, mbid: album.artistMbid ?? '' });
    }
    this.artistList = [...byId.values()];
    return this.artistList;
  }

  private sortedBy(type: string, key: (album: FakeAlbum) => string): readonly FakeAlbum[] {
    const cached = this.sorted.get(type);
    if (cached) return cached;
    const keyed = this.albums.map((album) => ({ album, key: key(album) }));
    keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const result = keyed.map((entry) => entry.album);
    this.sorted.set(type, result);
    return result;
  }
}

function missing(name: string): AlbumListSelection {
  return { error: { code: 10, message: `missing parameter: '${name}'` } };
}

/** Lower-case without accents, as Navidrome compares search text. */
function normalize(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

function shuffle(albums: readonly FakeAlbum[]): FakeAlbum[] {
  const copy = albums.slice();
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    const held = copy[i];
    const other = copy[j];
    if (held === undefined || other === undefined) continue;
    copy[i] = other;
    copy[j] = held;
  }
  return copy;
}
