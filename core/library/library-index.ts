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
    this.addMatchKeys({ mbids: mbidsOf(item), names: namesOf(item) }, owner);
  }

  /** `add` with keys already computed (a lowercased mbid and a name key; empty for none), as stored on disk. */
  addKeys(mbid: string | undefined, name: string | undefined, owner: Owner): void {
    if (mbid) this.byMbid.set(compactMbid(mbid), owner);
    if (name) this.byName.set(compactName(name), owner);
  }

  /** Every key of `keys` (from {@link matchKeysOf}) under `owner`. */
  addMatchKeys(keys: MatchKeys, owner: Owner): void {
    for (const mbid of keys.mbids) this.byMbid.set(compactMbid(mbid), owner);
    for (const name of keys.names) this.byName.set(compactName(name), owner);
  }

  removeKeys(mbid: string | undefined, name: string | undefined, owner: Owner): void {
    this.removeMatchKeys({ mbids: mbid ? [mbid] : [], names: name ? [name] : [] }, owner);
  }

  remove(item: AlbumIdentity, owner: Owner): void {
    this.removeMatchKeys({ mbids: mbidsOf(item), names: namesOf(item) }, owner);
  }

  find(item: AlbumIdentity): Owner | undefined {
    for (const mbid of mbidsOf(item)) {
      const owner = this.byMbid.get(compactMbid(mbid));
      if (owner !== undefined) return owner;
    }
    const [name] = namesOf(item);
    return name ? this.byName.get(compactName(name)) : undefined;
  }

  clear(): void {
    this.byMbid.clear();
    this.byName.clear();
  }

  get size(): number {
    return Math.max(this.byMbid.size, this.byName.size);
  }

  private removeMatchKeys(keys: MatchKeys, owner: Owner): void {
    for (const mbid of keys.mbids.map(compactMbid)) if (this.byMbid.get(mbid) === owner) this.byMbid.delete(mbid);
    for (const name of keys.names.map(compactName)) if (this.byName.get(name) === owner) this.byName.delete(name);
  }
}

// Keys as the matcher holds them: a matcher of a year of decisions and a 100,000-album library holds a quarter of
// a million keys, so their form in memory counts. Both forms are one-to-one, so matching is unchanged.
const UUID = /^([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/;

/**
 * A lowercase UUID as its 16 bytes in 8 UTF-16 units after a U+0000 mark (40 bytes of heap instead of 56); any
 * other id after a U+0001 mark. The mark keeps the two forms from ever meeting. fromCharCode with every unit at
 * once makes one flat string (appending unit by unit would leave a chain of string pieces behind each key).
 */
function compactMbid(mbid: string): string {
  const parts = UUID.exec(mbid);
  if (!parts) return `\u0001${mbid}`;
  const hex = parts.slice(1).join('');
  const units = [0];
  for (let i = 0; i < 32; i += 4) units.push(parseInt(hex.slice(i, i + 4), 16));
  return String.fromCharCode(...units);
}

/**
 * albumKey joins artist and album with U+241F, which makes every key a two-byte string in V8; with U+001F (which
 * no normalised name holds) a plain-Latin key takes half the memory. Decoded from bytes, so the key is one flat
 * string, not pieces of the two-byte one (a replace() result would keep that alive).
 */
function compactName(name: string): string {
  return Buffer.from(name.replace('\u241f', '\x1f'), 'utf8').toString('utf8');
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
  return second ? albumKey(item.artist, second) : undefined;
}
