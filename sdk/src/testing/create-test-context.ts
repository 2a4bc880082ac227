import type { PluginContext } from '../context.js';
import { createHttpClient, type HttpClient } from '../http-client.js';
import type { MusicBrainz } from '../musicbrainz.js';
import { ManualClock } from './manual-clock.js';
import { MemoryStorage } from './memory-storage.js';
import { RecordingLogger } from './recording-logger.js';

/** What a test may substitute in {@link createTestContext}; everything else gets a test default. */
export interface TestContextOverrides {
  clock?: ManualClock;
  storage?: MemoryStorage;
  log?: RecordingLogger;
  /** Defaults to a real client from `createHttpClient` (2 s timeout), closed by `close()`. */
  http?: HttpClient;
  newId?: () => string;
  serverVersion?: string;
  /** The host's outbound policy, for plugins that honour `refuseTargetAddress`; absent by default, as on older hosts. */
  refuseTargetAddress?: (address: string) => string | undefined;
  /** The shared MusicBrainz client for plugins that declare `uses: ['musicbrainz']` (e.g. one pointed at a fake); absent by default. */
  musicbrainz?: MusicBrainz;
}

/**
 * A {@link PluginContext} for tests, with the test's handles on it: the manual clock, the in-memory storage,
 * the recording logger, and the AbortController behind `signal`.
 */
export interface TestContext<C> extends PluginContext<C> {
  readonly clock: ManualClock;
  readonly storage: MemoryStorage;
  readonly log: RecordingLogger;
  /** Abort it to simulate the server shutting down (`signal` aborts). */
  readonly abort: AbortController;
  /** Aborts the signal and closes the HTTP client the context created. Call it in `after()`/`t.after()`. */
  close(): Promise<void>;
}

/**
 * Builds the context the server would hand to `create()`: a real HTTP client, a manual clock, in-memory
 * storage and a silent recording logger. `config` is used as given: run it through {@link configFor} first
 * to apply the schema's defaults and check it, as the server does.
 *
 * @example
 * import { createTestContext, configFor } from '@crateflow/sdk/testing';
 * const ctx = createTestContext(configFor(plugin, { topic_url: fake.url }));
 * t.after(() => ctx.close());
 * const sink = await plugin.create(ctx);
 * await ctx.clock.advance(60_000);
 */
export function createTestContext<C>(config: C, overrides: TestContextOverrides = {}): TestContext<C> {
  const abort = new AbortController();
  let http = overrides.http;
  let closeHttp = async (): Promise<void> => undefined;
  if (!http) {
    // A liveness bound for requests to fakes on loopback (a plugin's own timeouts come from its config): 2 s was
    // broken by a loaded machine, where a fake's answer took longer.
    const own = createHttpClient({ userAgent: 'crateflow-sdk-test', defaultTimeoutMs: 30_000 });
    http = own;
    closeHttp = () => own.close();
  }
  let ids = 0;
  return {
    config,
    clock: overrides.clock ?? new ManualClock(),
    storage: overrides.storage ?? new MemoryStorage(),
    log: overrides.log ?? new RecordingLogger(),
    http,
    signal: abort.signal,
    abort,
    newId: overrides.newId ?? (() => `test${String(++ids).padStart(8, '0')}`),
    serverVersion: overrides.serverVersion ?? '0.0.0-test',
    ...(overrides.refuseTargetAddress ? { refuseTargetAddress: overrides.refuseTargetAddress } : {}),
    ...(overrides.musicbrainz ? { musicbrainz: overrides.musicbrainz } : {}),
    async close() {
      abort.abort();
      await closeHttp();
    },
  };
}
