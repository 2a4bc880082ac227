import { join } from 'node:path';
import type { DependencyContainer } from 'tsyringe';
import type { AppConfig } from './config/app-config.schema.js';
import { parseDuration } from './config/parse-duration.js';
import { Tokens } from './di/tokens.js';
import { DownloadService } from './downloads/download-service.js';
import { downloadRoutes } from './downloads/downloads.routes.js';
import { EventBus } from './events/event-bus.js';
import type { RouteSpec } from './http/route.js';
import { JobLog } from './jobs/job-log.js';
import { JobScheduler } from './jobs/job-scheduler.js';
import { emptyLibraryData, LibraryCatalog, type LibraryData } from './library/library-catalog.js';
import { LibraryService } from './library/library-service.js';
import { libraryRoutes } from './library/library.routes.js';
import { KnownAlbums } from './queue/known-albums.js';
import { QueueService } from './queue/queue-service.js';
import { queueRoutes } from './queue/queue.routes.js';
import { SourceRunner } from './sources/source-runner.js';
import { SourceSchedule } from './sources/source-schedule.js';
import { SourceState } from './sources/source-state.js';
import { sourceRoutes } from './sources/sources.routes.js';
import { CoreStore } from './storage/core-store.js';
import type { Database } from './storage/database.js';
import { WishlistOrder } from './wishlist/wishlist-order.js';
import { WishlistService } from './wishlist/wishlist-service.js';
import { wishlistRoutes } from './wishlist/wishlist.routes.js';
import { metadataRoutes, proposalIntake, registerMetadata, startMetadata, stopMetadata } from './register-metadata.js';

/** Part of the composition root: the domain services, their routes and their background work. */
export async function registerDomain(container: DependencyContainer, database: Database): Promise<void> {
  const libraryDoc = await database.document<LibraryData>('library', emptyLibraryData);
  container.register(LibraryCatalog, { useValue: await LibraryCatalog.open(libraryDoc, join(database.dir, 'library-albums.jsonl')) });
  container.register(KnownAlbums, { useValue: new KnownAlbums(container.resolve(CoreStore)) });
  container.register(WishlistOrder, { useValue: new WishlistOrder(container.resolve(CoreStore)) });
  container.registerSingleton(JobLog);
  container.registerSingleton(JobScheduler);
  container.registerSingleton(QueueService);
  container.registerSingleton(WishlistService);
  container.registerSingleton(DownloadService);
  container.registerSingleton(LibraryService);
  container.register(SourceState, { useValue: await SourceState.open(database) });
  container.registerSingleton(SourceRunner);
  container.registerSingleton(SourceSchedule);
  await container.resolve(JobLog).failInterrupted();
  await registerMetadata(container, database.dir);
}

export function domainRoutes(container: DependencyContainer): RouteSpec[] {
  const downloads = container.resolve(DownloadService);
  return [
    ...queueRoutes(container.resolve(QueueService), proposalIntake(container)),
    ...wishlistRoutes(container.resolve(WishlistService), downloads, proposalIntake(container)),
    ...downloadRoutes(downloads),
    ...libraryRoutes(container.resolve(LibraryService), container.resolve(JobLog)),
    ...sourceRoutes({ runner: container.resolve(SourceRunner), schedule: container.resolve(SourceSchedule), state: container.resolve(SourceState) }),
    ...metadataRoutes(container),
  ];
}

/** Starts the periodic work: download polling and the scheduled library sync. */
export function startDomain(container: DependencyContainer): void {
  const config = container.resolve<AppConfig>(Tokens.Config);
  const scheduler = container.resolve(JobScheduler);
  const downloads = container.resolve(DownloadService);
  const library = container.resolve(LibraryService);
  scheduler.every('download_poll', parseDuration(config.download_client.poll_interval), () => downloads.tick(), 0);
  // An approval is handed to the download client at once; the poll only follows progress.
  container.resolve(EventBus).subscribe((event) => {
    if (event.type === 'queue_approved') downloads.handOff();
  });
  scheduler.every('library_sync', parseDuration(config.library.sync_interval), async () => {
    await (await library.startSync('schedule')).done;
  });
  container.resolve(SourceSchedule).start();
  startMetadata(container);
}

/** Work that waits until the server answers requests: the sources due at start-up (they may take a while). */
export function startAfterListen(container: DependencyContainer): void {
  container.resolve(SourceSchedule).afterListen();
}

/** Stops the periodic work and waits for what is running, a sync started by a request included. */
export async function stopDomain(container: DependencyContainer): Promise<void> {
  // Source runs stop at the shutdown signal (aborted before this); one that ignores it is not waited for forever.
  await container.resolve(SourceRunner).whenIdle(container.resolve<AppConfig>(Tokens.Config).server.shutdown_timeout_ms);
  await container.resolve(JobScheduler).stop();
  await stopMetadata(container);
  await container.resolve(DownloadService).stop();
  await container.resolve(LibraryService).whenIdle();
  await container.resolve(LibraryCatalog).close();
}
