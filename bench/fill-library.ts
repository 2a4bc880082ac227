import type { LibraryAlbum } from '@crateflow/sdk';
import { LibraryTable } from '../core/library/library-table.js';
import type { Store } from '../core/storage/store.js';

/**
 * Stores `albums` as a library sync's result in a stopped service's store, through the service's LibraryTable (the
 * call a sync makes), with names only, as a folder library finds them. Making half a million album folders and
 * syncing them would take many minutes; the catalogue is the same.
 */
export async function fillLibrary(store: Store, albums: readonly LibraryAlbum[]): Promise<void> {
  await new LibraryTable(store).replace(albums, new Date().toISOString());
}
