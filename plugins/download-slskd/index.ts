import { resolve } from 'node:path';
import { definePlugin, PLUGIN_API_VERSION, isRetryLaterError, type PluginHealth } from '@crateflow/sdk';
import { durationMs } from './duration-ms.js';
import { SlskdApi } from './slskd-api.js';
import { SlskdConfig } from './slskd-config.schema.js';
import { SlskdDownloads } from './slskd-downloads.js';

/**
 * Download client for slskd (a Soulseek client with a REST API). For each wanted item it searches, ranks the
 * answering peers' folders, downloads the best one and reports its local folder once every file is on disk:
 * `<downloads_dir>/<Artist - Album [ref]>` with slskd 0.26+ (per-batch destination), else `<downloads_dir>/<remote folder>`.
 * See shared/reference/slskd-api.md for the API and its quirks.
 */
export default definePlugin({
  manifest: { name: 'download-slskd', kind: 'download-client', apiVersion: PLUGIN_API_VERSION, configSchema: SlskdConfig, version: '1.0.0' },
  create: ({ config, http, storage, clock, log, signal, newId }) => {
    const base = `${config.url.replace(/\/+$/, '')}${config.url_base.replace(/\/+$/, '')}`;
    const api = new SlskdApi(http, base, config.api_key, signal);
    // download_path is absolute whatever the config says, so the library and webhooks get a usable path.
    const downloads = new SlskdDownloads({ api, storage, clock, log, config, newId, downloadsDir: resolve(config.downloads_dir), stallMs: durationMs(config.stall_timeout) });

    const health = async (): Promise<PluginHealth> => {
      try {
        const app = await api.application();
        if (app.connected && app.loggedIn) return { ok: true };
        return { ok: false, message: `slskd ${app.version} at ${base} is not logged in to the Soulseek network (state: ${app.state})` };
      } catch (err: unknown) {
        return { ok: false, message: err instanceof Error ? err.message : String(err) };
      }
    };

    return {
      async start() {
        try {
          const app = await api.application();
          log.info({ url: base, version: app.version, state: app.state }, 'connected to slskd');
        } catch (err: unknown) {
          // Startup goes on either way: downloads stay queued, every poll records the reason in the download's
          // error and the job log, and they continue once slskd answers (or the key is fixed and Crateflow restarted).
          const message = err instanceof Error ? err.message : String(err);
          if (isRetryLaterError(err)) log.warn({ url: base, err: message }, 'slskd is not reachable yet; downloads wait until it is');
          else log.error({ url: base, err: message }, 'slskd refused the connection check; downloads will fail until the configuration is fixed');
        }
      },
      health,
      request: (item) => downloads.request(item),
      status: (ref, item) => downloads.status(ref, item),
      cancel: (ref) => downloads.cancel(ref),
    };
  },
});
