import { definePlugin, PLUGIN_API_VERSION, isRetryLaterError, type LibraryAlbum, type PluginHealth } from '@crateflow/sdk';
import { JellyfinApi } from './jellyfin-api.js';
import { JellyfinConfig } from './jellyfin-config.schema.js';
import { arrayField, isRecord, numberField, stringField } from '@crateflow/sdk';
import { retryPage } from './retry-page.js';
import { toLibraryAlbum } from './to-library-album.js';

/**
 * Library backend for Jellyfin: lists every MusicAlbum with `/Items` paging (MusicBrainz ids included) and,
 * after a download, can queue a library scan with `POST /Library/Refresh`.
 */
export default definePlugin({
  manifest: { name: 'library-jellyfin', kind: 'library', apiVersion: PLUGIN_API_VERSION, configSchema: JellyfinConfig, version: '1.0.0' },
  create: ({ config, http, log, serverVersion, clock }) => {
    const api = new JellyfinApi(http, { url: config.url, apiKey: config.api_key, timeoutMs: config.timeout_ms, version: serverVersion });

    return {
      async start() {
        try {
          const info = await api.getJson('/System/Info');
          log.info({ url: api.base, server: stringField(info, 'ServerName'), version: stringField(info, 'Version') }, 'connected to Jellyfin');
        } catch (err: unknown) {
          // A wrong key or URL stops startup with the reason; a Jellyfin that is down is retried at the next sync.
          if (!isRetryLaterError(err)) throw err;
          log.warn({ url: api.base, err: err.message }, 'Jellyfin is not reachable yet; the library syncs once it is');
        }
      },

      async health(): Promise<PluginHealth> {
        try {
          await api.getJson('/System/Info');
          return { ok: true };
        } catch (err: unknown) {
          return { ok: false, message: err instanceof Error ? err.message : String(err) };
        }
      },

      async *albums(signal: AbortSignal): AsyncIterable<LibraryAlbum[]> {
        for (let start = 0; !signal.aborted; ) {
          const query: Record<string, string> = {
            IncludeItemTypes: 'MusicAlbum',
            Recursive: 'true',
            // Without Fields=ProviderIds the DTO leaves the MusicBrainz ids out.
            Fields: 'ProviderIds',
            SortBy: 'SortName',
            SortOrder: 'Ascending',
            StartIndex: String(start),
            Limit: String(config.page_size),
            EnableImages: 'false',
            EnableUserData: 'false',
            EnableTotalRecordCount: 'true',
            ...(config.user_id ? { userId: config.user_id } : {}),
          };
          const result = await retryPage(() => api.getJson('/Items', query, signal), {
            attempts: config.page_attempts, firstDelayMs: 2000, clock, signal,
            onRetry: (err, attempt, delayMs) => log.warn({ start_index: start, attempt, retry_in_ms: delayMs, err: err.message }, 'an album page from Jellyfin failed; reading it again'),
          });
          const items = arrayField(result, 'Items').filter(isRecord);
          const page = items.flatMap((item) => toLibraryAlbum(item) ?? []);
          if (page.length > 0) yield page;
          start += items.length;
          // Only a short (or empty) page ends the listing: TotalRecordCount is lower than the real count on
          // 10.11 (jellyfin #15186), so stopping at it would leave albums out and download them again.
          if (items.length < config.page_size) {
            const total = numberField(result, 'TotalRecordCount');
            if (total !== undefined && total !== start) log.debug({ total_record_count: total, albums: start }, 'Jellyfin\'s TotalRecordCount differs from the albums it listed');
            return;
          }
        }
      },

      async refresh() {
        // Only (re)queues Jellyfin's "Scan Media Library" task; the scan itself runs in the background.
        await api.post('/Library/Refresh');
        log.info('asked Jellyfin to scan its libraries');
      },
    };
  },
});
