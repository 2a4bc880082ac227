import 'reflect-metadata';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AppConfig } from '../../../core/config/app-config.schema.js';
import { Tokens } from '../../../core/di/tokens.js';
import { DownloadService } from '../../../core/downloads/download-service.js';
import { EventBus } from '../../../core/events/event-bus.js';
import { JobLog } from '../../../core/jobs/job-log.js';
import { JobScheduler } from '../../../core/jobs/job-scheduler.js';
import { LibraryService } from '../../../core/library/library-service.js';
import { AlbumRegistry } from '../../../core/queue/album-registry.js';
import { QueueTable } from '../../../core/queue/queue-table.js';
import { WishlistTable } from '../../../core/wishlist/wishlist-table.js';
import { DownloadsTable } from '../../../core/downloads/downloads-table.js';
import { JobsTable } from '../../../core/jobs/jobs-table.js';
import { LibraryTable } from '../../../core/library/library-table.js';
import { UnitOfWork } from '../../../core/events/unit-of-work.js';
import { QueueService } from '../../../core/queue/queue-service.js';
import { WishlistService } from '../../../core/wishlist/wishlist-service.js';
import { startApp, type StartedApp } from '../../helpers/start-app.js';
import { CoverService } from '../../../core/covers/cover-service.js';
import { CandidateEnricher } from '../../../core/metadata/candidate-enricher.js';
import { CandidateResolver } from '../../../core/metadata/candidate-resolver.js';
import { ReleaseGroupSearch } from '../../../core/search/release-group-search.js';

describe('the DI container', () => {
  let first: StartedApp;
  let second: StartedApp;
  before(async () => {
    // With a contact and without: every token resolves to a value; no request is made.
    first = await startApp({ config: { metadata: { contact: 'crateflow-tests@example.org' } } });
    second = await startApp();
  });
  after(async () => {
    await first.close();
    await second.close();
  });

  it('resolves every root registration', () => {
    const { container } = first.crateflow;
    for (const token of Object.values(Tokens)) assert.notEqual(container.resolve(token), undefined, String(token));
    for (const service of [QueueTable, WishlistTable, DownloadsTable, JobsTable, LibraryTable, AlbumRegistry, UnitOfWork, EventBus, JobLog, JobScheduler, QueueService, WishlistService, DownloadService, LibraryService, CoverService, CandidateResolver, ReleaseGroupSearch, CandidateEnricher]) {
      assert.ok(container.resolve<object>(service) instanceof service, service.name);
    }
  });

  it('keeps one container per app, so two apps in one process share nothing', () => {
    const a = first.crateflow.container.resolve(QueueService);
    const b = second.crateflow.container.resolve(QueueService);
    assert.notEqual(a, b);
    assert.equal(first.crateflow.container.resolve(QueueService), a, 'singleton within one app');
    assert.notEqual(first.crateflow.container.resolve<AppConfig>(Tokens.Config).storage.dir, second.crateflow.container.resolve<AppConfig>(Tokens.Config).storage.dir);
  });
});
