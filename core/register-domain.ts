import type { DependencyContainer } from 'tsyringe';
import type { AppConfig } from './config/app-config.schema.js';
import { parseDuration } from './config/parse-duration.js';
import { Tokens } from './di/tokens.js';
import { DownloadService } from './downloads/download-service.js';
import { downloadRoutes } from './downloads/downloads.routes.js';
import { EventBus } from './events/event-bus.js';
import type { RouteSpec } from './http/route.js';
import type { RequestAuthenticator } from './auth/request-authenticator.js';
import { JobLog } from './jobs/job-log.js';
import { JobScheduler } from './jobs/job-scheduler.js';
import { LibraryTable } from './library/library-table.js';
import { LibraryService } from './library/library-service.js';
import { libraryRoutes } from './library/library.routes.js';
import { AlbumRegistry } from './queue/album-registry.js';
import { QueueTable } from './queue/queue-table.js';
import { QueueService } from './queue/queue-service.js';
import { queueRoutes } from './queue/queue.routes.js';
import { RequestLedger } from './requests/request-ledger.js';
import { RequestRules } from './requests/request-rules.js';
import { requestRoutes } from './requests/requests.routes.js';
import { SourceRunner } from './sources/source-runner.js';
import { SourceSchedule } from './sources/source-schedule.js';
import { SourceStateTable } from './sources/source-state-table.js';
import { sourceRoutes } from './sources/sources.routes.js';
import type { Store } from './storage/store.js';
import { UnitOfWork } from './events/unit-of-work.js';
import { DownloadsTable } from './downloads/downloads-table.js';
import { JobsTable } from './jobs/jobs-table.js';
import { WishlistTable } from './wishlist/wishlist-table.js';
import { WishlistService } from './wishlist/wishlist-service.js';
import { wishlistRoutes } from './wishlist/wishlist.routes.js';
import { metadataRoutes, proposalIntake, registerMetadata, startMetadata, stopMetadata } from './register-metadata.js';

/** Part of the composition root: the domain services, their routes and their background work. */
export async function registerDomain(container: DependencyContainer, store: Store): Promise<void> {
  // The tables: each the one module that writes its rows; services change them inside UnitOfWork.mutate.
  container.register(QueueTable, { useValue: new QueueTable(store) });
  container.register(WishlistTable, { useValue: new WishlistTable(store) });
  container.register(DownloadsTable, { useValue: new DownloadsTable(store) });
  container.register(JobsTable, { useValue: new JobsTable(store) });
  container.register(LibraryTable, { useValue: new LibraryTable(store) });
  container.register(SourceStateTable, { useValue: new SourceStateTable(store) });
  container.register(AlbumRegistry, { useValue: new AlbumRegistry(store) });
  container.register(RequestLedger, {
    useValue: new RequestLedger(store, container.resolve(WishlistTable), container.resolve(DownloadsTable), container.resolve(LibraryTable)),
  });
  container.register(UnitOfWork, { useValue: new UnitOfWork(store, container.resolve(EventBus)) });
  container.registerSingleton(JobLog);
  container.registerSingleton(JobScheduler);
  container.registerSingleton(QueueService);
  container.registerSingleton(WishlistService);
  container.registerSingleton(DownloadService);
  container.registerSingleton(LibraryService);
  container.registerSingleton(SourceRunner);
  container.registerSingleton(SourceSchedule);
  await container.resolve(JobLog).failInterrupted();
  await registerMetadata(container, store.dir);
}

export function domainRoutes(container: DependencyContainer): RouteSpec[] {
  const downloads = container.resolve(DownloadService);
  return [
    ...queueRoutes(container.resolve(QueueService), proposalIntake(container), (identity) => {
      const role = identity ? container.resolve<RequestAuthenticator>(Tokens.Authenticator).roleOf(identity) : undefined;
      return container.resolve(RequestRules).termsFor(identity?.name ?? '', role);
    }),
    ...requestRoutes(container.resolve(RequestLedger), container.resolve(QueueService)),
    ...wishlistRoutes(container.resolve(WishlistService), downloads, proposalIntake(container)),
    ...downloadRoutes(downloads),
    ...libraryRoutes(container.resolve(LibraryService), container.resolve(JobLog)),
    ...sourceRoutes({ runner: container.resolve(SourceRunner), schedule: container.resolve(SourceSchedule), state: container.resolve(SourceStateTable) }),
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
}
