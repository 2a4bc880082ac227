import { definePlugin, PLUGIN_API_VERSION, isRetryLaterError, type LibraryAlbum, type PluginHealth } from '@crateflow/sdk';
import { arrayField, booleanField, isRecord, stringField } from '@crateflow/sdk';
import { SubsonicApi } from './subsonic-api.js';
import { SubsonicConfig } from './subsonic-config.schema.js';
import { toLibraryAlbum } from './to-library-album.js';

/**
 * Library backend for Subsonic-compatible servers (Navidrome, gonic, Airsonic): reads every album with
 * `getAlbumList2` paging and, after a download, can ask for a rescan with `startScan`.
 */
export default definePlugin({
  manifest: { name: 'library-subsonic', kind: 'library', apiVersion: PLUGIN_API_VERSION, configSchema: SubsonicConfig, version: '1.0.0' },
  create: ({ config, http, log }) => {
    const api = new SubsonicApi(http, {
      url: config.url,
      username: config.username,
      password: config.password,
      clientName: config.client_name,
      timeoutMs: config.timeout_ms,
    });

    return {
      async start() {
        try {
          const pong = await api.call('ping');
          const flavour = pong['openSubsonic'] === true ? `${stringField(pong, 'type') ?? 'OpenSubsonic'} ${stringField(pong, 'serverVersion') ?? ''}`.trim() : 'plain Subsonic';
          log.info({ url: api.base, server: flavour, api_version: stringField(pong, 'version') }, 'connected to the Subsonic server');
          if (pong['openSubsonic'] !== true) log.info('the server does not speak OpenSubsonic: albums are matched by artist and name only (no MusicBrainz ids)');
        } catch (err: unknown) {
          // Wrong credentials or a wrong URL stop startup with the reason; a server that is down is retried at the next sync.
          if (!isRetryLaterError(err)) throw err;
          log.warn({ url: api.base, err: err.message }, 'the Subsonic server is not reachable yet; the library syncs once it is');
        }
      },

      async health(): Promise<PluginHealth> {
        try {
          await api.call('ping');
          return { ok: true };
        } catch (err: unknown) {
          return { ok: false, message: err instanceof Error ? err.message : String(err) };
        }
      },

      async *albums(signal: AbortSignal): AsyncIterable<LibraryAlbum[]> {
        // alphabeticalByName is a stable order over the whole library; a short page (or none) is the end.
        for (let offset = 0; !signal.aborted; ) {
          const response = await api.call('getAlbumList2', { type: 'alphabeticalByName', size: config.page_size, offset }, signal);
          const list = isRecord(response['albumList2']) ? arrayField(response['albumList2'], 'album') : [];
          const page = list.filter(isRecord).flatMap((album) => toLibraryAlbum(album) ?? []);
          if (page.length > 0) yield page;
          if (list.length < config.page_size) return;
          offset += list.length;
        }
      },

      async refresh() {
        if (!config.start_scan_after_download) return;
        const answer = await api.call('startScan');
        const scanning = isRecord(answer['scanStatus']) ? booleanField(answer['scanStatus'], 'scanning') : undefined;
        log.info({ scanning }, 'asked the Subsonic server to scan its library');
      },
    };
  },
});
