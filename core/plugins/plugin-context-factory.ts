import { createHttpClient, type Clock, type DecisionLinks, type LocalAccounts, type Logger, type MusicBrainz, type PluginContext, type PluginKind } from '@crateflow/sdk';
import type { OutboundAddressPolicy } from '../net/outbound-address-policy.js';
import { configuredUrls, createUpstreamHttpClient } from '../net/upstream-http-client.js';
import type { Store } from '../storage/store.js';
import { SqlPluginStorage } from './sql-plugin-storage.js';

export interface PluginContextDeps {
  store: Store;
  log: Logger;
  clock: Clock;
  signal: AbortSignal;
  version: string;
  newId: () => string;
  /** `webhooks_policy`, handed to plugins as `refuseTargetAddress`. */
  refuseTargetAddress?: (address: string) => string | undefined;
  /** `metadata_policy`, which the HTTP client of every source and preview plugin obeys. */
  metadataPolicy?: OutboundAddressPolicy;
  /** The shared MusicBrainz client, handed only to plugins whose manifest `uses` it. */
  musicbrainz?: MusicBrainz;
  /** Decision links, when `server.public_url` is set. */
  decisionLinks?: DecisionLinks;
  /** The local accounts an admin manages, handed to auth plugins only. */
  accounts?: LocalAccounts;
}

// Plugins that fetch public metadata (ListenBrainz, Last.fm, Deezer, …): their requests obey `metadata_policy`.
const METADATA_KINDS: ReadonlySet<PluginKind> = new Set(['source', 'preview']);

/**
 * Builds the context one plugin receives: its own logger, HTTP client and storage; the shared clock and signal. A
 * source's or preview's HTTP client reaches the URLs its config names (`listenbrainz_url`, a Deezer fake on loopback)
 * at their own origin, and everything else only where `metadata_policy` allows.
 */
export async function createPluginContext<C>(
  name: string,
  config: C,
  deps: PluginContextDeps,
  kind?: PluginKind,
): Promise<{ context: PluginContext<C>; close(): Promise<void> }> {
  const userAgent = `crateflow/${deps.version} (${name})`;
  const http = deps.metadataPolicy && kind !== undefined && METADATA_KINDS.has(kind)
    ? createUpstreamHttpClient({ userAgent, defaultTimeoutMs: 10_000, policy: deps.metadataPolicy, upstreams: configuredUrls(config) })
    : createHttpClient({ userAgent, defaultTimeoutMs: 10_000 });
  const context: PluginContext<C> = {
    config,
    log: deps.log.child({ plugin: name }),
    http,
    storage: new SqlPluginStorage(deps.store, name),
    clock: deps.clock,
    signal: deps.signal,
    newId: deps.newId,
    serverVersion: deps.version,
    ...(deps.refuseTargetAddress ? { refuseTargetAddress: deps.refuseTargetAddress } : {}),
    ...(deps.musicbrainz ? { musicbrainz: deps.musicbrainz } : {}),
    ...(deps.decisionLinks ? { decisionLinks: deps.decisionLinks } : {}),
    ...(deps.accounts && kind === 'auth' ? { accounts: deps.accounts } : {}),
  };
  return { context, close: () => http.close() };
}
