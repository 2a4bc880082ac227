import { createHttpClient, type Clock, type Logger, type MusicBrainz, type PluginContext } from '@crateflow/sdk';
import type { Database } from '../storage/database.js';
import { DocumentPluginStorage, type PluginStorageData } from './document-plugin-storage.js';

export interface PluginContextDeps {
  database: Database;
  log: Logger;
  clock: Clock;
  signal: AbortSignal;
  version: string;
  newId: () => string;
  /** `webhooks_policy`, handed to plugins as `refuseTargetAddress`. */
  refuseTargetAddress?: (address: string) => string | undefined;
  /** The shared MusicBrainz client, handed only to plugins whose manifest `uses` it. */
  musicbrainz?: MusicBrainz;
}

/** Builds the context one plugin receives: its own logger, HTTP client and storage; the shared clock and signal. */
export async function createPluginContext<C>(
  name: string,
  config: C,
  deps: PluginContextDeps,
): Promise<{ context: PluginContext<C>; close(): Promise<void> }> {
  const doc = await deps.database.document<PluginStorageData>(`plugin-${name}`, () => ({ entries: {} }), { collections: ['entries'] });
  const http = createHttpClient({ userAgent: `crateflow/${deps.version} (${name})`, defaultTimeoutMs: 10_000 });
  const context: PluginContext<C> = {
    config,
    log: deps.log.child({ plugin: name }),
    http,
    storage: new DocumentPluginStorage(doc),
    clock: deps.clock,
    signal: deps.signal,
    newId: deps.newId,
    serverVersion: deps.version,
    ...(deps.refuseTargetAddress ? { refuseTargetAddress: deps.refuseTargetAddress } : {}),
    ...(deps.musicbrainz ? { musicbrainz: deps.musicbrainz } : {}),
  };
  return { context, close: () => http.close() };
}
