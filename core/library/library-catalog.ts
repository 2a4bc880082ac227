import type { LibraryAlbum } from '@crateflow/sdk';
import type { JsonDocument } from '../storage/json-document.js';
import { AlbumMatcher, type AlbumIdentity } from './library-index.js';

/** `library.json`: the albums known from the last completed sync. */
export interface LibraryData {
  albums: LibraryAlbum[];
  synced_at: string | null;
}

export const emptyLibraryData = (): LibraryData => ({ albums: [], synced_at: null });

/** The albums the user owns, as of the last sync, with a matcher to ask "is this one of them?". */
export class LibraryCatalog {
  private readonly matcher = new AlbumMatcher();

  constructor(private readonly doc: JsonDocument<LibraryData>) {
    this.reindex();
  }

  get albums(): readonly LibraryAlbum[] {
    return this.doc.data.albums;
  }

  get syncedAt(): string | null {
    return this.doc.data.synced_at;
  }

  owns(item: AlbumIdentity): boolean {
    return this.matcher.find(item) !== undefined;
  }

  /** How the owned album matching `item` is named to clients (its mbid, else "Artist — Album"), if owned. */
  find(item: AlbumIdentity): string | undefined {
    const index = this.matcher.find(item);
    const album = index === undefined ? undefined : this.doc.data.albums[Number(index)];
    return album && (album.mbid ?? album.release_group_mbid ?? `${album.artist} — ${album.album}`);
  }

  /** Replaces the whole catalogue with a sync's result, in shelf order, and persists it. */
  async replace(albums: LibraryAlbum[], syncedAt: string): Promise<void> {
    this.doc.data.albums = albums.sort(shelfOrder);
    this.doc.data.synced_at = syncedAt;
    this.reindex();
    await this.doc.commit();
  }

  private reindex(): void {
    this.matcher.clear();
    this.doc.data.albums.forEach((album, i) => {
      this.matcher.add(album, String(i));
      // A collaboration or a compilation is owned whichever of its credited artists a wishlist item names.
      for (const artist of album.artists ?? []) this.matcher.add({ ...album, artist }, String(i));
    });
  }
}

// Artist, then album, as a person files them: case and accents ignored, "Vol. 2" before "Vol. 10". Backends list
// albums in whatever order they keep them (a folder listing, a server's index), which reads as no order at all.
const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });
function shelfOrder(a: LibraryAlbum, b: LibraryAlbum): number {
  return collator.compare(a.artist, b.artist) || collator.compare(a.album, b.album);
}
