import { normalizeName } from '@crateflow/sdk';

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
    if (name) this.byName.set(name, owner);
  }

  /** Every key of `keys` (from {@link matchKeysOf}) under `owner`. */
  addMatchKeys(keys: MatchKeys, owner: Owner): void {
    for (const mbid of keys.mbids) this.byMbid.set(compactMbid(mbid), owner);
    for (const name of keys.names) this.byName.set(name, owner);
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

  private removeMatchKeys(keys: MatchKeys, owner: Owner): void {
    for (const mbid of keys.mbids.map(compactMbid)) if (this.byMbid.get(mbid) === owner) this.byMbid.delete(mbid);
    for (const name of keys.names) if (this.byName.get(name) === owner) this.byName.delete(name);
  }
}

// Keys as the matcher holds them: a matcher of a year of decisions and a 100,000-album library holds a quarter of
// a million keys, so their form in memory counts. The form is one-to-one, so matching is unchanged.
const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) HEX['0123456789abcdef'.charCodeAt(i)] = i;
const DASHES = [8, 13, 18, 23];

/**
 * A lowercase UUID as its 16 bytes in 8 UTF-16 units after a U+0000 mark (40 bytes of heap instead of 56); any
 * other id after a U+0001 mark. The mark keeps the two forms from ever meeting. Parsed by hand and made with one
 * fromCharCode call: a start-up indexes a quarter of a million ids, and appending unit by unit would leave a
 * chain of string pieces behind each key.
 */
function compactMbid(mbid: string): string {
  if (mbid.length !== 36 || DASHES.some((at) => mbid.charCodeAt(at) !== 45)) return `\u0001${mbid}`;
  const units = [0, 0, 0, 0, 0, 0, 0, 0, 0];
  let unit = 1;
  let value = 0;
  let digits = 0;
  for (let i = 0; i < 36; i++) {
    if (i === 8 || i === 13 || i === 18 || i === 23) continue;
    const code = mbid.charCodeAt(i);
    const digit = code < 128 ? (HEX[code] ?? -1) : -1;
    if (digit < 0) return `\u0001${mbid}`;
    value = value * 16 + digit;
    if (++digits === 4) {
      units[unit++] = value;
      value = 0;
      digits = 0;
    }
  }
  return String.fromCharCode(...units);
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
