import type { Clock } from './clock.js';
import type { LocalAccounts } from './local-accounts.js';
import type { DecisionLinks } from './decision-links.js';
import type { HttpClient } from './http-client.js';
import type { Logger } from './logger.js';
import type { MusicBrainz } from './musicbrainz.js';
import type { PluginStorage } from './plugin-storage.js';

/**
 * Everything a plugin gets from the server. A plugin never receives the server's internals (container,
 * HTTP framework, database handles): only this.
 *
 * @example
 * create: ({ config, log, http, storage, clock, signal }) => ({ … })
 */
export interface PluginContext<C> {
  /** The plugin's config block, validated against its `configSchema` with defaults applied. */
  readonly config: Readonly<C>;
  /** A child logger tagged with the plugin name. */
  readonly log: Logger;
  /** Outbound HTTP with timeouts and the server's User-Agent. */
  readonly http: HttpClient;
  /** Persistent key/value storage, namespaced to this plugin. */
  readonly storage: PluginStorage;
  /** The clock to use for every timer and timestamp (tests substitute a manual one). */
  readonly clock: Clock;
  /** Aborted when the server shuts down. */
  readonly signal: AbortSignal;
  /** A new unique id (time-ordered, URL-safe). */
  newId(): string;
  /** The server's version, e.g. for a User-Agent of the plugin's own. */
  readonly serverVersion: string;
  /**
   * The operator's policy for outbound targets that users name (`webhooks_policy` in config.yaml): a reason
   * when an address must not be connected to, else undefined. Optional: hosts before 1.1 do not offer it, so
   * feature-detect and combine it with your own checks.
   *
   * @example
   * const http = createHttpClient({ userAgent, refuseAddress: (a) => myFloor(a) ?? ctx.refuseTargetAddress?.(a) });
   */
  readonly refuseTargetAddress?: (address: string) => string | undefined;
  /**
   * The server's one MusicBrainz client (sdk 1.2), present when the manifest lists `uses: ['musicbrainz']` and the
   * server offers it. Older servers leave it out: feature-detect.
   */
  readonly musicbrainz?: MusicBrainz;
  /**
   * Decision links for queue items (sdk 1.5), present when the server has `server.public_url` set (links need an
   * address people reach). Older servers, and servers without one, leave it out: feature-detect.
   */
  readonly decisionLinks?: DecisionLinks;
  /**
   * The local accounts an admin manages (sdk 1.6), for auth plugins that check passwords. Older servers leave it
   * out: feature-detect.
   */
  readonly accounts?: LocalAccounts;
}
