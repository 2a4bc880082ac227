import { albumKey } from '@crateflow/sdk';

/** What identifies an album for matching: its MusicBrainz id(s) when known, else normalised artist + album. */
export interface AlbumIdentity {
  artist: string;
  album?: string;
  title?: string;
  mbid?: string;
  release_group_mbid?: string;
}

/**
 * Answers "do we already have this album?" for de-duplication and library matching, by `mbid` when both sides
 * have one, else by normalised artist + album. The one implementation every matcher uses.
 */
export class AlbumMatcher<Owner = string> {
  private readonly byMbid = new Map<string, Owner>();
  private readonly byName = new Map<string, Owner>();

  /** Remembers `item` under `owner` (an id, or any label the caller wants back from `find`). */
  add(item: AlbumIdentity, owner: Owner): void {
    for (const mbid of mbidsOf(item)) this.byMbid.set(mbid, owner);
    const name = nameKeyOf(item);
    if (name) this.byName.set(name, owner);
  }

  /** `add` with keys already computed (a lowercased mbid and a name key; empty for none), as stored on disk. */
  addKeys(mbid: string | undefined, name: string | undefined, owner: Owner): void {
    if (mbid) this.byMbid.set(mbid, owner);
    if (name) this.byName.set(name, owner);
  }

  /** Every key of `keys` (from {@link matchKeysOf}) under `owner`. */
  addMatchKeys(keys: MatchKeys, owner: Owner): void {
    for (const mbid of keys.mbids) this.byMbid.set(mbid, owner);
    for (const name of keys.names) this.byName.set(name, owner);
  }

  removeKeys(mbid: string | undefined, name: string | undefined, owner: Owner): void {
    if (mbid && this.byMbid.get(mbid) === owner) this.byMbid.delete(mbid);
    if (name && this.byName.get(name) === owner) this.byName.delete(name);
  }

  remove(item: AlbumIdentity, owner: Owner): void {
    for (const mbid of mbidsOf(item)) if (this.byMbid.get(mbid) === owner) this.byMbid.delete(mbid);
    const name = nameKeyOf(item);
    if (name && this.byName.get(name) === owner) this.byName.delete(name);
  }

  find(item: AlbumIdentity): Owner | undefined {
    for (const mbid of mbidsOf(item)) {
      const owner = this.byMbid.get(mbid);
      if (owner !== undefined) return owner;
    }
    const name = nameKeyOf(item);
    return name ? this.byName.get(name) : undefined;
  }

  clear(): void {
    this.byMbid.clear();
    this.byName.clear();
  }

  get size(): number {
    return Math.max(this.byMbid.size, this.byName.size);
  }
}

/** The keys an album is matched by, computed once and stored with it (see LibraryAlbumsFile). */
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

function mbidsOf(item: AlbumIdentity): string[] {
  const ids: string[] = [];
  if (item.mbid) ids.push(item.mbid.toLowerCase());
  if (item.release_group_mbid) ids.push(item.release_group_mbid.toLowerCase());
  return ids;
}

/** The name key: artist + album (or track title for a track without an album). */
export function nameKeyOf(item: AlbumIdentity): string | undefined {
  const second = item.album ?? item.title;
  return second ? albumKey(item.artist, second) : undefined;
}
