import { artistKey, normalizeName } from '@crateflow/sdk';

/** What identifies an album for matching: its MusicBrainz id(s) when known, else normalised artist + album. */
export interface AlbumIdentity {
  artist: string;
  album?: string;
  title?: string;
  mbid?: string;
  release_group_mbid?: string;
}

/** The keys an album is matched by, computed once and stored with it (library_keys, the name_key columns). */
export interface MatchKeys {
  mbids: string[];
  names: string[];
}

/**
 * An album's keys: its mbids, and its name key under its artist and under each credited artist (a collaboration
 * or a compilation is owned whichever of its artists a wishlist item names).
 */
export function matchKeysOf(album: AlbumIdentity & { artists?: readonly string[] }): MatchKeys {
  const names = new Set<string>();
  for (const artist of [album.artist, ...(album.artists ?? [])]) {
    const name = nameKeyOf({ ...album, artist });
    if (name) names.add(name);
  }
  return { mbids: mbidsOf(album), names: [...names] };
}

/** An album's MusicBrainz keys, lower case: its release mbid, then its release group's (the order they are tried in). */
export function mbidsOf(item: AlbumIdentity): string[] {
  const ids: string[] = [];
  if (item.mbid) ids.push(item.mbid.toLowerCase());
  if (item.release_group_mbid) ids.push(item.release_group_mbid.toLowerCase());
  return ids;
}

/**
 * The name key: the artist credit as a set of artists (see the sdk's artistKey) + album (or track title for a track
 * without an album).
 */
export function nameKeyOf(item: AlbumIdentity): string | undefined {
  const second = item.album ?? item.title;
  return second ? `${artistKey(item.artist)}${NAME_KEY_SEPARATOR}${normalizeName(second)}` : undefined;
}

/**
 * Between artist and album in a name key. Since credits match as sets of artists (issue #27) it is U+001D; earlier
 * versions used other separators, so a key they stored is never compared: the import from before SQLite makes every
 * key again from its record. One byte keeps a key a one-byte string in V8.
 */
export const NAME_KEY_SEPARATOR = '\x1d';
