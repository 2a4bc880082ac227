import { artistKey, normalizeName } from '@crateflow/sdk';
import { HashedKeyTable } from '../storage/hashed-key-table.js';

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
 *
 * Owners are numbers (a line, a slot): the keys live in two {@link HashedKeyTable}s, which hold no strings, so a
 * year of decisions and a 100,000-album library cost a few MB, and an index can save and load its matcher whole.
 */
export class AlbumMatcher {
  private byMbid: HashedKeyTable;
  private byName: HashedKeyTable;

  constructor(tables?: { byMbid: HashedKeyTable; byName: HashedKeyTable }) {
    this.byMbid = tables?.byMbid ?? new HashedKeyTable();
    this.byName = tables?.byName ?? new HashedKeyTable();
  }

  /** The two tables, to save with an index (see {@link AlbumMatcher} constructor to load them). */
  get tables(): { byMbid: HashedKeyTable; byName: HashedKeyTable } {
    return { byMbid: this.byMbid, byName: this.byName };
  }

  /** Remembers `item` under `owner`. */
  add(item: AlbumIdentity, owner: number): void {
    this.addMatchKeys({ mbids: mbidsOf(item), names: namesOf(item) }, owner);
  }

  /** `add` with keys already computed (a lowercased mbid and a name key; empty for none), as stored on disk. */
  addKeys(mbid: string | undefined, name: string | undefined, owner: number): void {
    if (mbid) this.byMbid.set(mbid, owner);
    if (name) this.byName.set(name, owner);
  }

  /** Every key of `keys` (from {@link matchKeysOf}) under `owner`. */
  addMatchKeys(keys: MatchKeys, owner: number): void {
    for (const mbid of keys.mbids) this.byMbid.set(mbid, owner);
    for (const name of keys.names) this.byName.set(name, owner);
  }

  removeKeys(mbid: string | undefined, name: string | undefined, owner: number): void {
    this.removeMatchKeys({ mbids: mbid ? [mbid] : [], names: name ? [name] : [] }, owner);
  }

  remove(item: AlbumIdentity, owner: number): void {
    this.removeMatchKeys({ mbids: mbidsOf(item), names: namesOf(item) }, owner);
  }

  find(item: AlbumIdentity): number | undefined {
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

  private removeMatchKeys(keys: MatchKeys, owner: number): void {
    for (const mbid of keys.mbids) this.byMbid.delete(mbid, owner);
    for (const name of keys.names) this.byName.delete(name, owner);
  }
}

function namesOf(item: AlbumIdentity): string[] {
  const name = nameKeyOf(item);
  return name ? [name] : [];
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
 * Between artist and album in a name key; which one also tells the rules a stored key was made by. Keys are stored
 * on the lines of the append-only files and the library catalogue, and as hashes in the indexes saved beside them.
 * U+241F (first versions) and then U+001F joined keys whose artist half was the credit as written, in its order;
 * since credits match as sets of artists (issue #27) the separator is U+001D. A stored key with another separator
 * is not compared: readers make the key again from the record on the line ({@link isCurrentNameKey}), and saved
 * indexes of earlier keys are not loaded (their tables are saved under {@link NAME_TABLE}). One byte, not U+241F,
 * keeps a key a one-byte string in V8: a quarter of a million keys in memory take half the room.
 */
export const NAME_KEY_SEPARATOR = '\x1d';

/** The name under which saved indexes keep their table of name-key hashes: another name for other key rules. */
export const NAME_TABLE = 'creditSetName';

/** Whether a stored name key (empty: none) was made by today's rules, else it must be made again from its record. */
export function isCurrentNameKey(key: string): boolean {
  return key === '' || key.includes(NAME_KEY_SEPARATOR);
}
