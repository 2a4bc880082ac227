import type { LibraryAlbum } from '../records.js';
import type { PluginLifecycle } from './plugin-lifecycle.js';

/**
 * A library backend (kind `library`): tells the server which albums the user already owns.
 *
 * `albums()` yields pages so a library of 50,000 albums never sits in memory twice; the server reads every
 * page in one sync and replaces what it knew. Stop early when `signal` is aborted.
 *
 * @example
 * create: ({ http }) => ({
 *   async *albums(signal) {
 *     for (let offset = 0; !signal.aborted; offset += 500) {
 *       const page = await fetchPage(offset);
 *       if (page.length) yield page;
 *       if (page.length < 500) return;
 *     }
 *   },
 * })
 */
export interface LibraryBackend extends PluginLifecycle {
  albums(signal: AbortSignal): AsyncIterable<LibraryAlbum[]>;
  /** Asks the backend to rescan after a download landed (optional; e.g. Subsonic `startScan`). */
  refresh?(hint: { download_path?: string }): Promise<void>;
}
