import type { LibraryAlbum } from '@crateflow/sdk';
import { LibraryTable } from '../core/library/library-table.js';
import type { Store } from '../core/storage/store.js';

/**
 * Stores `albums` as a library sync's result in a stopped service's store, through the service's LibraryTable (what
 * a sync's replace() writes), with names only, as a folder library finds them. Making half a million album folders and
 * syncing them would take many minutes; the catalogue is the same.
 */
export function fillLibrary(store: Store, albums: readonly LibraryAlbum[]): void {
  const library = new LibraryTable(store);
  // A plain transaction, not store.change() (see fill-data-dir.ts): replaceInChange is the body of replace().
  store.db.transaction(() => library.replaceInChange(albums, new Date().toISOString())).immediate();
}
