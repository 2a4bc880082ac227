import type { DownloadUpdate, WantedItem } from '../records.js';
import type { PluginLifecycle } from './plugin-lifecycle.js';

/**
 * A download client (kind `download-client`): takes wanted items and reports their progress.
 *
 * The server calls `request()` once per download and stores the returned `ref`; then it calls `status()`
 * on every poll until the state is `completed` or `failed`. Clients keep whatever they need to resume in
 * their plugin storage under that ref, so a restart of the server (or of the external service) loses nothing.
 * Throw `RetryLaterError` when the service is unreachable (the server keeps the download and polls again),
 * `CredentialsError` on a 401.
 *
 * @example
 * create: ({ storage }) => ({
 *   async request(item) { const ref = `req-${item.id}`; await storage.set(ref, { item }); return { ref }; },
 *   async status(ref) { return { state: 'downloading', progress: 0.5 }; },
 * })
 */
export interface DownloadClient extends PluginLifecycle {
  /** Starts downloading `item`; resolves with the client's reference for it. */
  request(item: WantedItem): Promise<{ ref: string }>;
  /** The current state of a download started with `request()`. */
  status(ref: string, item: WantedItem): Promise<DownloadUpdate>;
  /** Stops a download and forgets it (optional). */
  cancel?(ref: string): Promise<void>;
}
