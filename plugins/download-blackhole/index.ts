import { mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { definePlugin, PLUGIN_API_VERSION, Type, type DownloadUpdate, type WantedItem } from '@crateflow/sdk';
import { findCompleteFolder, folderActivity } from './find-complete-folder.js';
import { prepareRequestTempDir } from './request-temp-dir.js';
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
  create: ({ config, storage, clock, log }) => {
    // Absolute from here on: request files, download_path and events are read by other programs (a download tool,
    // Node-RED, a library scanner) that do not share Crateflow's working directory, which relative paths rely on.
    const requestsDir = resolve(config.requests_dir);
    const completeDir = resolve(config.complete_dir);
    // What each folder looked like when first seen in its current state. A copy that preserves modification
    // times (rsync -a, cp -p) can leave old mtimes between files, so the file count and size must also have
    // stayed the same for the whole quiet period. Kept in memory: after a restart the quiet period restarts.
    const lastSeen = new Map<string, { files: number; bytes: number; since: number }>();
    // Chosen once, at start (or at the first request, should a host call request() first); a failure is not kept,
    // so a folder that could not be made (a share not yet mounted) is tried again at the next request.
    let tempDir: Promise<string> | undefined;
    const requestTempDir = (): Promise<string> =>
      (tempDir ??= prepareRequestTempDir(requestsDir, log).catch((err: unknown) => {
        tempDir = undefined;
        throw err;
      }));

    async function forget(ref: string): Promise<void> {
      lastSeen.delete(ref);
      const record = storage.get<RequestRecord>(`request/${ref}`);
      if (!record) return;
      await unlink(record.file).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
      await storage.delete(`request/${ref}`);
    }

    return {
      async start() {
        await requestTempDir();
        await mkdir(completeDir, { recursive: true });
      },

      async request(item: WantedItem) {
        const release = item.album ?? item.title ?? 'unknown';
        const name = `${safeFileName(item.artist)} - ${safeFileName(release)} [${safeFileName(item.id, 40)}].json`;
        const file = join(requestsDir, name);
        // Where the finished folder must be put for status() to find it (names are matched normalised, so this
        // exact spelling is one that works, not the only one).
        const expectedDir = join(completeDir, safeFileName(item.artist), safeFileName(release));
        const body = {
          id: item.id, artist: item.artist, album: item.album, title: item.title, mbid: item.mbid, type: item.type, year: item.year,
          expected_dir: expectedDir, requested_at: new Date(clock.now()).toISOString(),
        };
        // Written outside requests_dir and renamed in, so whatever watches requests_dir sees whole files only
        // (issues #27, #28). The folders are made again in case someone removed them while the service ran.
        const temp = join(await requestTempDir(), `${name}.tmp`);
        await mkdir(requestsDir, { recursive: true });
        await mkdir(dirname(temp), { recursive: true });
        await writeFile(temp, `${JSON.stringify(body, null, 2)}\n`);
        await rename(temp, file);
        const ref = item.id;
        await storage.set(`request/${ref}`, { file } satisfies RequestRecord);
        return { ref };
      },

      async status(ref: string, item: WantedItem): Promise<DownloadUpdate> {
        const folder = await findCompleteFolder(completeDir, item.artist, item.album ?? item.title ?? '');
        if (!folder) return { state: 'queued', progress: 0 };
        const activity = await folderActivity(folder);
        const now = clock.now();
        const previous = lastSeen.get(ref);
        const unchangedSince = previous && previous.files === activity.files && previous.bytes === activity.bytes ? previous.since : now;
        lastSeen.set(ref, { files: activity.files, bytes: activity.bytes, since: unchangedSince });
        const quiet = now - activity.newestMtimeMs >= config.quiet_period_ms && now - unchangedSince >= config.quiet_period_ms;
        if (activity.files === 0 || !quiet) return { state: 'downloading', progress: 0.5 };
        // The request is fulfilled: remove its file so the tool working the blackhole does not see it again.
        await forget(ref).catch((err: unknown) => log.warn({ err, ref }, 'could not remove a fulfilled request file'));
        return { state: 'completed', progress: 1, download_path: folder };
      },

      cancel: forget,
    };
  },
});
