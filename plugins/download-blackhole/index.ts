import { mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { definePlugin, PLUGIN_API_VERSION, Type, type DownloadUpdate, type WantedItem } from '@crateflow/sdk';
import { findCompleteFolder, folderActivity } from './find-complete-folder.js';
import { safeFileName } from './safe-file-name.js';

const Config = Type.Object(
  {
    requests_dir: Type.String({ minLength: 1, default: './blackhole/requests', description: 'one JSON request file per wanted item is written here' }),
    complete_dir: Type.String({ minLength: 1, default: './blackhole/complete', description: 'a finished download appears here as <Artist>/<Album>/' }),
    quiet_period_ms: Type.Integer({ minimum: 0, maximum: 3_600_000, default: 15000, description: 'a folder counts as complete once nothing in it changed for this long' }),
  },
  { additionalProperties: false },
);

interface RequestRecord {
  [key: string]: string;
  file: string;
}

/**
 * The default download client: a "blackhole" folder pair for any external tool (or a person) to work from.
 * Each wanted item becomes a JSON request file; the download is complete when a matching
 * `<Artist>/<Album>` folder appears in `complete_dir` and has stopped changing.
 */
export default definePlugin({
  manifest: { name: 'download-blackhole', kind: 'download-client', apiVersion: PLUGIN_API_VERSION, configSchema: Config, version: '1.0.0' },
  create: ({ config, storage, clock }) => ({
    async start() {
      await mkdir(config.requests_dir, { recursive: true });
      await mkdir(config.complete_dir, { recursive: true });
    },

    async request(item: WantedItem) {
      const name = `${safeFileName(item.artist)} - ${safeFileName(item.album ?? item.title ?? 'unknown')} [${safeFileName(item.id, 40)}].json`;
      const file = join(config.requests_dir, name);
      const body = { id: item.id, artist: item.artist, album: item.album, title: item.title, mbid: item.mbid, type: item.type, year: item.year, requested_at: new Date(clock.now()).toISOString() };
      await mkdir(config.requests_dir, { recursive: true });
      await writeFile(`${file}.tmp`, `${JSON.stringify(body, null, 2)}\n`);
      await rename(`${file}.tmp`, file);
      const ref = item.id;
      await storage.set(`request/${ref}`, { file } satisfies RequestRecord);
      return { ref };
    },

    async status(_ref: string, item: WantedItem): Promise<DownloadUpdate> {
      const folder = await findCompleteFolder(config.complete_dir, item.artist, item.album ?? item.title ?? '');
      if (!folder) return { state: 'queued', progress: 0 };
      const activity = await folderActivity(folder);
      const quietFor = clock.now() - activity.newestMtimeMs;
      if (activity.files === 0 || quietFor < config.quiet_period_ms) return { state: 'downloading', progress: 0.5 };
      return { state: 'completed', progress: 1, download_path: folder };
    },

    async cancel(ref: string) {
      const record = storage.get<RequestRecord>(`request/${ref}`);
      if (record) {
        await unlink(record.file).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'ENOENT') throw err;
        });
        await storage.delete(`request/${ref}`);
      }
    },
  }),
});
