import { normalizeName, type LibraryAlbum } from '@crateflow/sdk';
import type { JsonDocument } from '../storage/json-document.js';
import { HashedKeyTable, loadTable, saveTable } from '../storage/hashed-key-table.js';
import { IndexFile, type IndexArrays } from '../storage/index-file.js';
import { LibraryAlbumsFile, sameFile, type FileIdentity, type IndexedLine } from './library-albums-file.js';
import { AlbumMatcher, NAME_TABLE, type AlbumIdentity } from './library-index.js';

/**
 * `library.json`: when the last completed sync ran and how many albums it found. The albums themselves are in
 * `library-albums.jsonl`; `albums` is only read, from documents of earlier versions that held them all here.
 */
export interface LibraryData {
  synced_at: string | null;
  count?: number;
  albums?: LibraryAlbum[];
}

export const emptyLibraryData = (): LibraryData => ({ synced_at: null, count: 0 });

export interface LibraryPage {
  items: LibraryAlbum[];
  total: number;
}

/**
 * The albums the user owns, as of the last sync, with a matcher to ask "is this one of them?". Only the match
 * keys and each album's line offset are in memory; albums are read from disk when a page or a match needs them.
 */
export class LibraryCatalog {
  private matcher = new AlbumMatcher();
  private offsets: Float64Array<ArrayBuffer> = new Float64Array(0);

  /** Use {@link LibraryCatalog.open}: it reads the index. (Public only because the DI container names the class.) */
  constructor(
    private readonly doc: JsonDocument<LibraryData>,
    private readonly file: LibraryAlbumsFile,
    private readonly saved: IndexFile<FileIdentity>,
  ) {}

  static async open(doc: JsonDocument<LibraryData>, albumsPath: string): Promise<LibraryCatalog> {
    const catalog = new LibraryCatalog(doc, new LibraryAlbumsFile(albumsPath), new IndexFile(`${albumsPath}.idx`));
    const legacy = doc.data.albums;
    if (legacy && legacy.length > 0) {
      // An earlier version kept every album in library.json: move them to their own file, then drop them there.
      // A crash between the two leaves them in both, and the next start moves them again.
      await catalog.replace(legacy, doc.data.synced_at ?? new Date(0).toISOString());
    } else if (!(await catalog.loadSavedIndex())) {
      catalog.reindex(await catalog.file.index());
      await catalog.saveIndex();
    }
    return catalog;
  }

  get count(): number {
    return this.offsets.length;
  }

  get syncedAt(): string | null {
    return this.doc.data.synced_at;
  }

  owns(item: AlbumIdentity): boolean {
    return this.matcher.find(item) !== undefined;
  }

  /** How the owned album matching `item` is named to clients (its mbid, else "Artist — Album"), if owned. */
  async find(item: AlbumIdentity): Promise<string | undefined> {
    const index = this.matcher.find(item);
    const offset = index === undefined ? undefined : this.offsets[index];
    if (offset === undefined) return undefined;
    const [album] = await this.file.read([offset]);
    return album && (album.mbid ?? album.release_group_mbid ?? `${album.artist} — ${album.album}`);
  }

  /** Albums in shelf order, `limit` from `offset`. */
  async page(offset: number, limit: number): Promise<LibraryPage> {
    return { items: await this.file.read(Array.from(this.offsets.subarray(offset, offset + limit))), total: this.offsets.length };
  }

  /** Albums matching `matches`, in shelf order, `limit` from `offset`: a scan of the file, for searches. */
  async search(matches: (album: LibraryAlbum) => boolean, offset: number, limit: number): Promise<LibraryPage> {
    const items: LibraryAlbum[] = [];
    let total = 0;
    await this.file.scan((album) => {
      if (!matches(album)) return;
      if (total >= offset && items.length < limit) items.push(album);
      total++;
    });
    return { items, total };
  }

  /**
   * The artists of the catalogue with how many albums each has, most albums first (then by name): a scan of the
   * file, for discovery sources that seed from the library. Names that differ only in case or accents count as one.
   */
  async artists(): Promise<{ name: string; albums: number }[]> {
    const byKey = new Map<string, { name: string; albums: number }>();
    await this.file.scan((album) => {
      const key = normalizeName(album.artist);
      const entry = byKey.get(key);
      if (entry) entry.albums++;
      else byKey.set(key, { name: album.artist, albums: 1 });
    });
    return [...byKey.values()].sort((a, b) => b.albums - a.albums || byName(a.name, b.name));
  }

  /** Replaces the whole catalogue with a sync's result, in shelf order, and persists it. */
  async replace(albums: LibraryAlbum[], syncedAt: string): Promise<void> {
    const lines = await this.file.replace(albums.sort(shelfOrder));
    this.reindex(lines);
    await this.saveIndex();
    this.doc.data.synced_at = syncedAt;
    this.doc.data.count = lines.length;
    if (this.doc.data.albums) this.doc.data.albums = []; // emptied, not deleted: a change log records values
    await this.doc.commit();
  }

  async close(): Promise<void> {
    await this.file.close();
  }

  private reindex(lines: readonly IndexedLine[]): void {
    this.matcher = new AlbumMatcher();
    this.offsets = Float64Array.from(lines, (line) => line.offset);
    lines.forEach((line, i) => this.matcher.addMatchKeys(line.keys, i));
  }

  /**
   * The index saved beside the albums file at the last sync, when it is of that very file (same inode, size and
   * modification time: a sync replaces the file whole, a restore from a backup writes a new one). A start-up then
   * reads a few MB of arrays instead of every line of the catalogue.
   */
  private async loadSavedIndex(): Promise<boolean> {
    const [saved, identity] = await Promise.all([this.saved.read(), this.file.identity()]);
    if (!saved || !identity || !sameFile(saved.meta, identity)) return false;
    const { offsets, mbidHigh, mbidLow, mbidValues } = saved.arrays;
    if (!(offsets instanceof Float64Array) || !(mbidHigh instanceof Uint32Array) || !(mbidLow instanceof Uint32Array) || !(mbidValues instanceof Int32Array)) return false;
    // Name keys made by earlier rules were saved under another name: such an index is not loaded, and the keys are
    // made again from the file (see isCurrentNameKey).
    const byName = loadTable(saved.arrays, NAME_TABLE);
    if (!byName) return false;
    try {
      this.matcher = new AlbumMatcher({ byMbid: HashedKeyTable.fromArrays({ high: mbidHigh, low: mbidLow, values: mbidValues }), byName });
    } catch {
      return false;
    }
    this.offsets = offsets;
    await this.file.openForReading();
    return true;
  }

  /** Saves the index. A failed save is no error: it only costs the next start-up a full read of the file. */
  private async saveIndex(): Promise<void> {
    const identity = await this.file.identity();
    if (!identity) return this.saved.remove();
    const { byMbid, byName } = this.matcher.tables;
    const mbid = byMbid.arrays;
    const arrays: IndexArrays = { offsets: this.offsets, mbidHigh: mbid.high, mbidLow: mbid.low, mbidValues: mbid.values };
    saveTable(arrays, NAME_TABLE, byName);
    await this.saved.write(identity, arrays).catch(() => this.saved.remove().catch(() => undefined));
  }
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
