import { normalizeName, type LibraryAlbum, type LibraryArtist } from '@crateflow/sdk';
import type { Store } from '../storage/store.js';
import { matchKeysOf, mbidsOf, nameKeyOf, type AlbumIdentity } from './album-keys.js';

export interface LibraryPage {
  items: LibraryAlbum[];
  total: number;
}

/** An album as its rows are written: everything worked out before the transaction, which then only inserts. */
interface AlbumRow {
  artistKey: string;
  searchText: string;
  record: string;
  keys: readonly string[];
}

/**
 * The albums the user owns, as of the last library sync, in the database: `library_albums` in shelf order (each
 * album's `position`), `library_keys` with every key an album is matched by, `library_state` with when the sync ran
 * and how many albums it found. Nothing of the catalogue is held in memory; every read is an indexed query.
 *
 * A key held by several albums (two pressings sharing a release group, "Greatest Hits" of one artist on two
 * shelves) belongs to the last of them in shelf order, as it did when the catalogue was a file indexed in order.
 */
export class LibraryTable {
  private readonly statements;

  constructor(private readonly store: Store) {
    const db = store.db;
    this.statements = {
      state: db.prepare<[], { synced_at: string | null; count: number }>('SELECT synced_at, count FROM library_state WHERE only = 1'),
      hasKey: db.prepare<[string], number>('SELECT 1 FROM library_keys WHERE key = ? LIMIT 1').pluck(),
      owner: db.prepare<[string], string>('SELECT record FROM library_albums WHERE position = (SELECT max(position) FROM library_keys WHERE key = ?)').pluck(),
      // Positions are 0, 1, 2… in shelf order (every sync writes them all afresh), so a page is a range of them.
      page: db.prepare<[number, number], string>('SELECT record FROM library_albums WHERE position >= ? ORDER BY position LIMIT ?').pluck(),
      // SQLite takes the bare column `name` from the row that gave min(position): the first album of the artist on
      // the shelf, whose spelling of the name the artist is shown with.
      artists: db.prepare<[], { name: string; first: number; albums: number }>(
        "SELECT json_extract(record, '$.artist') AS name, min(position) AS first, count(*) AS albums FROM library_albums GROUP BY artist_key",
      ),
      clearKeys: db.prepare('DELETE FROM library_keys'),
      clearAlbums: db.prepare('DELETE FROM library_albums'),
      insertAlbum: db.prepare<[number, string, string, string]>('INSERT INTO library_albums (position, artist_key, search_text, record) VALUES (?, ?, ?, ?)'),
      // An album whose mbid is also its release group's has that key once.
      insertKey: db.prepare<[string, number]>('INSERT OR IGNORE INTO library_keys (key, position) VALUES (?, ?)'),
      setState: db.prepare<[string, number]>('INSERT INTO library_state (only, synced_at, count) VALUES (1, ?, ?) ON CONFLICT (only) DO UPDATE SET synced_at = excluded.synced_at, count = excluded.count'),
    };
  }

  /** How many albums the last sync found. */
  get count(): number {
    return this.statements.state.get()?.count ?? 0;
  }

  /** When the last sync that replaced the catalogue ran (ISO 8601), or null before the first. */
  get syncedAt(): string | null {
    return this.statements.state.get()?.synced_at ?? null;
  }

  owns(item: AlbumIdentity): boolean {
    return lookupKeysOf(item).some((key) => this.statements.hasKey.get(key) !== undefined);
  }

  /** How the owned album matching `item` is named to clients (its mbid, else "Artist — Album"), if owned. */
  find(item: AlbumIdentity): string | undefined {
    for (const key of lookupKeysOf(item)) {
      const record = this.statements.owner.get(key);
      if (record === undefined) continue;
      const album = parseAlbum(record);
      return album.mbid ?? album.release_group_mbid ?? `${album.artist} — ${album.album}`;
    }
    return undefined;
  }

  /** Albums in shelf order, `limit` from `offset`. */
  page(offset: number, limit: number): LibraryPage {
    return { items: this.statements.page.all(offset, limit).map(parseAlbum), total: this.count };
  }

  /**
   * Albums whose artist and title hold every word of `q` as the start of a word ("low" finds Low, not Slowdive), as
   * the pending queue searches, in shelf order, `limit` from `offset`. A `q` without words lists the whole shelf.
   */
  search(q: string, offset: number, limit: number): LibraryPage {
    const terms = normalizeName(q).split(' ').filter(Boolean);
    if (terms.length === 0) return this.page(offset, limit);
    // `search_text` is ' words ' of normalizeName, so ' term' found in it starts a word. instr() compares exactly,
    // where LIKE would need its wildcards escaped and fold ASCII case (normalised text has none to fold anyway).
    const where = terms.map(() => 'instr(search_text, ?) > 0').join(' AND ');
    const needles = terms.map((term) => ` ${term}`);
    const db = this.store.db;
    const total = db.prepare<string[], number>(`SELECT count(*) FROM library_albums WHERE ${where}`).pluck().get(...needles) ?? 0;
    const records = db.prepare<(string | number)[], string>(`SELECT record FROM library_albums WHERE ${where} ORDER BY position LIMIT ? OFFSET ?`).pluck().all(...needles, limit, offset);
    return { items: records.map(parseAlbum), total };
  }

  /**
   * The artists of the catalogue with how many albums each has, most albums first (then by name), for discovery
   * sources that seed from the library. Names that differ only in case or accents count as one.
   */
  artists(): LibraryArtist[] {
    return this.statements.artists
      .all()
      .map(({ name, albums }) => ({ name, albums }))
      .sort((a, b) => b.albums - a.albums || byName(a.name, b.name));
  }

  /**
   * Replaces the whole catalogue with a sync's result, in one transaction: a sync that cannot be saved (a full disk)
   * leaves the last catalogue whole, and a reader never sees half of each. Resolves once it is on disk.
   */
  async replace(albums: readonly LibraryAlbum[], syncedAt: string): Promise<void> {
    // Sorted and keyed before the transaction, so the database is busy only for the inserts. The shelf order is a
    // locale collation, which SQLite has none of here: it is kept as each album's position.
    const rows = [...albums].sort(shelfOrder).map(rowOf);
    await this.store.change(() => this.write(rows, syncedAt));
  }

  /**
   * `replace` inside a change the caller runs (synchronous): the import of an earlier data dir writes the catalogue
   * in the one transaction that holds everything it imports.
   */
  replaceInChange(albums: readonly LibraryAlbum[], syncedAt: string): void {
    this.write([...albums].sort(shelfOrder).map(rowOf), syncedAt);
  }

  private write(rows: readonly AlbumRow[], syncedAt: string): void {
    const s = this.statements;
    s.clearKeys.run();
    s.clearAlbums.run();
    for (const [position, row] of rows.entries()) {
      s.insertAlbum.run(position, row.artistKey, row.searchText, row.record);
      for (const key of row.keys) s.insertKey.run(key, position);
    }
    s.setState.run(syncedAt, rows.length);
  }
}

function rowOf(album: LibraryAlbum): AlbumRow {
  const { mbids, names } = matchKeysOf(album);
  return {
    artistKey: normalizeName(album.artist),
    searchText: ` ${normalizeName(`${album.artist} ${album.album}`)} `,
    record: JSON.stringify(album),
    keys: [...mbids, ...names],
  };
}

/**
 * The keys `item` is looked up by, in the order they are tried: its mbids, then its name key. Only the item's own
 * artist counts here (other credited artists are keys of library albums, not of what is asked about).
 */
function lookupKeysOf(item: AlbumIdentity): string[] {
  const name = nameKeyOf(item);
  return name === undefined ? mbidsOf(item) : [...mbidsOf(item), name];
}

function parseAlbum(record: string): LibraryAlbum {
  // Written by this table from a checked album (replaceInChange), so its shape is known.
  return JSON.parse(record) as LibraryAlbum;
}

// Artist, then album, as a person files them: case and accents ignored, "Vol. 2" before "Vol. 10". Backends list
// albums in whatever order they keep them (a folder listing, a server's index), which reads as no order at all.
// The collator is made on first use: it pages ICU's collation data in (about 3 MB of resident memory), which a
// process that never sorts a library does not need.
let collator: Intl.Collator | undefined;
function byName(a: string, b: string): number {
  collator ??= new Intl.Collator('en', { sensitivity: 'base', numeric: true });
  return collator.compare(a, b);
}
function shelfOrder(a: LibraryAlbum, b: LibraryAlbum): number {
  return byName(a.artist, b.artist) || byName(a.album, b.album);
}
