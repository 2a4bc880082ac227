import { systemClock } from '@crateflow/sdk';
import { MemoryStorage } from '@crateflow/sdk/testing';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { createLogger } from '../../../core/logging/create-logger.js';
import { MusicBrainzClient } from '../../../core/metadata/musicbrainz-client.js';
import { startFakeLastFm, type FakeLastFm, type FakeLastFmOptions } from '../../fakes/fake-lastfm.js';
import { startFakeListenBrainz, type FakeListenBrainz, type FakeListenBrainzOptions } from '../../fakes/fake-listenbrainz.js';
import { startFakeMusicBrainz, type FakeMusicBrainz } from '../../fakes/fake-musicbrainz.js';
import type { SimilarityTable } from '../../fakes/fake-listenbrainz-labs.js';
import type { FakeListenBrainzUser } from '../../fakes/listenbrainz-users.js';
import { generateMusicBrainzCatalogue, type MusicBrainzCatalogue, type MusicBrainzCatalogueOptions } from '../../fakes/musicbrainz-catalogue.js';

export interface SourceWorldOptions {
  readonly catalogue?: MusicBrainzCatalogueOptions;
  readonly listenbrainz?: Omit<FakeListenBrainzOptions, 'catalogue' | 'users'>;
  /** ListenBrainz accounts made from the catalogue (default the fake's `rob` and `newbie`). */
  readonly listenBrainzUsers?: (catalogue: MusicBrainzCatalogue) => FakeListenBrainzUser[];
  /** The Labs similarity table, made from the catalogue. */
  readonly similarity?: (catalogue: MusicBrainzCatalogue) => SimilarityTable;
  readonly lastfm?: Omit<FakeLastFmOptions, 'catalogue'>;
}

/** The public services a discovery source talks to, as real fakes over loopback sharing one catalogue. */
export interface SourceWorld {
  readonly catalogue: MusicBrainzCatalogue;
  readonly musicbrainz: FakeMusicBrainz;
  readonly listenbrainz: FakeListenBrainz;
  readonly lastfm: FakeLastFm;
  /** One storage for the plugin across "restarts", as the server's store would be. */
  readonly storage: MemoryStorage;
  /**
   * Core's real MusicBrainz client on the fake, its disk cache in the world's data dir: a second client opened
   * later is the same server after a restart, with the cache the first one filled.
   */
  openMusicBrainz(): Promise<MusicBrainzClient>;
}

export async function startSourceWorld(t: TestContext, options: SourceWorldOptions = {}): Promise<SourceWorld> {
  const catalogue = generateMusicBrainzCatalogue({ artists: 8, prolificReleaseGroups: 24, releaseGroupsPerArtist: 16, ...options.catalogue });
  // No rate limit and no load shedding at the MusicBrainz fake: the client is opened without pacing on the real
  // clock, so tests need no clock work and count requests exactly; the client's pacing and its retry of shed
  // requests have their own tests (test/core/metadata/musicbrainz-client.test.ts).
  const musicbrainz = await startFakeMusicBrainz({ catalogue, rateLimit: false, loadShedding: false });
  const listenbrainz = await startFakeListenBrainz({ catalogue, ...options.listenbrainz, ...(options.listenBrainzUsers ? { users: options.listenBrainzUsers(catalogue) } : {}),
    ...(options.similarity ? { similarity: options.similarity(catalogue) } : {}) });
  const lastfm = await startFakeLastFm({ catalogue, ...options.lastfm });
  const dataDir = await mkdtemp(join(tmpdir(), 'crateflow-source-'));
  const clients: MusicBrainzClient[] = [];
  t.after(async () => {
    await Promise.all([...clients.map((client) => client.close()), musicbrainz.close(), listenbrainz.close(), lastfm.close()]);
    await rm(dataDir, { recursive: true, force: true });
  });
  return {
    catalogue, musicbrainz, listenbrainz, lastfm, storage: new MemoryStorage(),
    async openMusicBrainz() {
      const client = await MusicBrainzClient.open({
        version: '0.0.0-test', contact: 'https://example.org/crateflow-test', dataDir, clock: systemClock(), log: createLogger('silent'),
        baseUrl: musicbrainz.url, minIntervalMs: 0,
      });
      clients.push(client);
      return client;
    },
  };
}

/** Requests a fake received whose path starts with `prefix`. */
export function requestsTo(received: readonly { readonly path: string }[], prefix: string): number {
  return received.filter((request) => request.path.startsWith(prefix)).length;
}
