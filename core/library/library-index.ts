import { normalizeName } from '@crateflow/sdk';
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

function mbidsOf(item: AlbumIdentity): string[] {
  const ids: string[] = [];
  if (item.mbid) ids.push(item.mbid.toLowerCase());
  if (item.release_group_mbid) ids.push(item.release_group_mbid.toLowerCase());
  return ids;
}

/** The name key: artist + album (or track title for a track without an album). */
export function nameKeyOf(item: AlbumIdentity): string | undefined {
  const second = item.album ?? item.title;
  return second ? `${normalizeName(item.artist)}${NAME_KEY_SEPARATOR}${normalizeName(second)}` : undefined;
}

/**
 * Between artist and album in a name key. The sdk's albumKey joins them with U+241F, which makes every key a
 * two-byte string in V8; a quarter of a million keys in memory (a year of decisions, a 100,000-album library)
 * take half the room with U+001F, which no normalised name holds. Files written before hold U+241F: readers
 * decode stored keys with {@link decodeNameKey}.
 */
export const NAME_KEY_SEPARATOR = '\x1f';
const OLD_SEPARATOR = Buffer.from('\u241f');

/**
 * The name key stored in `bytes` from `start` to `end`, as one flat string (a one-byte string for Latin text),
 * with the separator of earlier versions replaced. Decoded from the bytes rather than edited as a string, which
 * would leave pieces of a two-byte string behind the key.
 */
export function decodeNameKey(bytes: Buffer, start: number, end: number): string {
  const old = bytes.indexOf(OLD_SEPARATOR, start);
  if (old === -1 || old >= end) return bytes.toString('utf8', start, end);
  const copy = Buffer.from(bytes.subarray(start, end));
  const at = old - start;
  copy[at] = 0x1f;
  copy.copyWithin(at + 1, at + OLD_SEPARATOR.length);
  return copy.toString('utf8', 0, copy.length - OLD_SEPARATOR.length + 1);
}
