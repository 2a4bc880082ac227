import type { DependencyContainer } from 'tsyringe';
import type { Clock, Logger, MusicBrainz } from '@crateflow/sdk';
import type { AppConfig } from './config/app-config.schema.js';
import { CoverService } from './covers/cover-service.js';
import { coverRoutes } from './covers/covers.routes.js';
import { Tokens } from './di/tokens.js';
import { EventBus } from './events/event-bus.js';
import type { RouteSpec } from './http/route.js';
import { LibraryTable } from './library/library-table.js';
import { CandidateEnricher } from './metadata/candidate-enricher.js';
import { CandidateResolver } from './metadata/candidate-resolver.js';
import { parseDuration } from './config/parse-duration.js';
import { previewOriginsOf } from './previews/preview-origins-of.js';
import { PreviewService } from './previews/preview-service.js';
import { previewRoutes } from './previews/previews.routes.js';
import type { LoadedPlugins } from './plugins/plugin-host.js';
import { ReleaseGroupDetails } from './release-groups/release-group-details.js';
import { releaseGroupRoutes } from './release-groups/release-groups.routes.js';
import type { ProposalIntake } from './queue/proposal-intake.js';
import { QueueService } from './queue/queue-service.js';
import { QueueTable } from './queue/queue-table.js';
import { ReleaseGroupSearch } from './search/release-group-search.js';
import { searchRoutes } from './search/search.routes.js';
import { WishlistTable } from './wishlist/wishlist-table.js';

/**
 * Part of the composition root: covers, search, lookups by mbid and background enrichment (issue #19). None of it
 * needs a setting: MusicBrainz is asked with Crateflow's own User-Agent (issue #28).
 */
export async function registerMetadata(container: DependencyContainer, dataDir: string): Promise<void> {
  const config = container.resolve<AppConfig>(Tokens.Config);
  const log = container.resolve<Logger>(Tokens.Log);
  const clock = container.resolve<Clock>(Tokens.Clock);
  const musicbrainz = container.resolve<MusicBrainz>(Tokens.MusicBrainz);
  const queueTable = container.resolve(QueueTable);
  const wishlistTable = container.resolve(WishlistTable);
  container.register(CoverService, {
    useValue: await CoverService.open({ metadata: config.metadata, dataDir, version: container.resolve<string>(Tokens.Version), clock, log: log.child({ component: 'covers' }),
      addressPolicy: container.resolve(Tokens.MetadataAddressPolicy),
    }),
  });
  container.register(CandidateResolver, { useValue: new CandidateResolver(musicbrainz, log) });
  container.register(ReleaseGroupSearch, {
    useValue: new ReleaseGroupSearch({ musicbrainz, queue: queueTable, wishlist: wishlistTable, library: container.resolve(LibraryTable), log }),
  });
  const plugins = container.resolve<LoadedPlugins>(Tokens.Plugins);
  container.register(PreviewService, {
    useValue: new PreviewService(plugins.preview, {
      plugins, origins: previewOriginsOf(plugins.preview, log), musicbrainz, queue: queueTable, wishlist: wishlistTable, clock,
      log: log.child({ component: 'previews' }), signal: container.resolve<AbortSignal>(Tokens.ShutdownSignal),
      cacheTtlMs: parseDuration(config.previews.cache_ttl), cacheMaxAlbums: config.previews.cache_max_albums,
    }),
  });
  container.register(ReleaseGroupDetails, { useValue: new ReleaseGroupDetails(musicbrainz, log) });
  const queue = container.resolve(QueueService);
  container.register(CandidateEnricher, {
    useValue: new CandidateEnricher({
      musicbrainz,
      queue: {
        pendingItem: (id) => queue.pendingItem(id),
        nextWithoutMbid: (after) => queue.nextWithoutMbid(after),
        completePending: (id, fields) => queue.completePending(id, fields),
      },
      clock,
      log: log.child({ component: 'enrichment' }),
      signal: container.resolve<AbortSignal>(Tokens.ShutdownSignal),
    }),
  });
}

/** Completes mbid-only candidates before they are stored. */
export function proposalIntake(container: DependencyContainer): ProposalIntake {
  const resolver = container.resolve(CandidateResolver);
  return { resolve: (proposed, pathOf) => resolver.resolve(proposed, pathOf) };
}

export function metadataRoutes(container: DependencyContainer): RouteSpec[] {
  return [
    ...coverRoutes(container.resolve(CoverService)),
    ...searchRoutes(container.resolve(ReleaseGroupSearch)),
    ...previewRoutes(container.resolve(PreviewService)),
    ...releaseGroupRoutes(container.resolve(ReleaseGroupDetails)),
  ];
}

/** Starts enrichment: of what the queue holds now, and of every item added from now on, by the API or a source. */
export function startMetadata(container: DependencyContainer): void {
  const enricher = container.resolve(CandidateEnricher);
  const queue = container.resolve(QueueService);
  // After the commit (events are published once the change is on disk), so the item is there to read.
  container.resolve(EventBus).subscribe((event) => {
    const item = event.type === 'queue_added' && event.data.id !== undefined ? queue.pendingItem(event.data.id) : undefined;
    if (item) enricher.enqueue([item]);
  });
  enricher.start();
}

export async function stopMetadata(container: DependencyContainer): Promise<void> {
  await container.resolve(CandidateEnricher).stop();
  await container.resolve(CoverService).close();
}
