import { randomUUID } from 'node:crypto';
import { systemClock } from '@crateflow/sdk';
import { EventBus } from '../core/events/event-bus.js';
import { createLogger } from '../core/logging/create-logger.js';
import { LoadedPlugins } from '../core/plugins/plugin-host.js';
import { CORE_COLLECTIONS, CORE_SHARED_FIELDS, emptyCoreData, type CoreData } from '../core/storage/core-data.js';
import { CoreStore } from '../core/storage/core-store.js';
import { Database } from '../core/storage/database.js';
import type { Download } from '../core/downloads/download.schema.js';

const PER_COMMIT = 5000;

/**
 * Adds the records a year of finished downloads leaves in a (stopped) service's data dir: one completed download
 * per album, archived as a library sync archives it once the album is filed. Written through the store's own
 * code (CoreStore, the archive), so the files are those the service writes; driving 45,000 albums through the
 * blackhole client one poll at a time would take hours.
 */
export async function archiveFinishedDownloads(dataDir: string, albums: readonly { artist: string; album: string }[]): Promise<void> {
  const database = await Database.open(dataDir, { exclusive: true });
  try {
    const doc = await database.document<CoreData>('crateflow', emptyCoreData, { collections: CORE_COLLECTIONS, sharedFields: CORE_SHARED_FIELDS });
    const events = new EventBus(doc, new LoadedPlugins([], undefined, undefined, undefined, []), systemClock(), createLogger('silent'), randomUUID, 1000);
    const store = await CoreStore.open(doc, events, database.dir);
    const started = Date.UTC(2025, 0, 1);
    for (let from = 0; from < albums.length; from += PER_COMMIT) {
      await store.mutate((_data, _emit, { archive }) => {
        for (let i = from; i < Math.min(albums.length, from + PER_COMMIT); i++) {
          const { artist, album } = albums[i] ?? { artist: '', album: '' };
          const at = new Date(started + i * 600_000).toISOString();
          const download: Download = {
            id: randomUUID(), wishlist_id: randomUUID(), artist, album, client: 'download-blackhole', state: 'completed', progress: 1, attempts: 1,
            created_at: at, updated_at: at, download_path: `/srv/downloads/complete/${artist} - ${album}`,
          };
          archive.stage('downloads', download, { state: download.state });
        }
      });
    }
    await store.close();
  } finally {
    await database.close();
  }
}
