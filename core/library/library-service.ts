import { inject, injectable } from 'tsyringe';
import { LibraryAlbum, normalizeName, type Clock, type Logger } from '@crateflow/sdk';
import { Tokens } from '../di/tokens.js';
import { ServiceUnavailableError } from '../errors/service-unavailable-error.js';
import { JobLog } from '../jobs/job-log.js';
import type { Job } from '../jobs/job.schema.js';
import { PluginError } from '../plugins/plugin-error.js';
import type { LoadedPlugins } from '../plugins/plugin-host.js';
import { KnownAlbums } from '../queue/known-albums.js';
import { compileStrict } from '../schema/ajv.js';
import { CoreStore } from '../storage/core-store.js';
import { LibraryCatalog } from './library-catalog.js';

const checkAlbum = compileStrict<LibraryAlbum>(LibraryAlbum);
const SYNC_JOB = 'library_sync';

/**
 * Library sync: reads every album from the library backend, page by page, replaces the catalogue, and removes
 * the wishlist items the user now owns (firing `wishlist_removed` for each). Only one sync runs at a time: a
 * request during a sync gets the running job.
 */
@injectable()
export class LibraryService {
  private running: { job: Job; done: Promise<void> } | undefined;

  constructor(
    @inject(CoreStore) private readonly store: CoreStore,
    @inject(LibraryCatalog) private readonly catalog: LibraryCatalog,
    @inject(KnownAlbums) private readonly known: KnownAlbums,
    @inject(JobLog) private readonly jobs: JobLog,
    @inject(Tokens.Plugins) private readonly plugins: LoadedPlugins,
    @inject(Tokens.Clock) private readonly clock: Clock,
    @inject(Tokens.Log) private readonly log: Logger,
    @inject(Tokens.ShutdownSignal) private readonly shutdown: AbortSignal,
  ) {}

  /** Starts a sync (or returns the one already running) without waiting for it. */
  async startSync(trigger: Job['trigger']): Promise<{ job: Job; done: Promise<void> }> {
    if (this.running) return this.running;
    if (!this.plugins.library) throw new ServiceUnavailableError('no library backend is configured');
    const job = await this.jobs.start(SYNC_JOB, trigger);
    const done = this.sync(job.id).finally(() => {
      this.running = undefined;
    });
    this.running = { job, done };
    return this.running;
  }

  list(filter: { q?: string; limit: number; offset: number }) {
    const terms = filter.q ? normalizeName(filter.q).split(' ').filter(Boolean) : [];
    const all = terms.length === 0
      ? this.catalog.albums
      : this.catalog.albums.filter((a) => {
          const text = ` ${normalizeName(`${a.artist} ${a.album}`)} `;
          return terms.every((t) => text.includes(t));
        });
    return { items: all.slice(filter.offset, filter.offset + filter.limit), total: all.length, limit: filter.limit, offset: filter.offset, synced_at: this.catalog.syncedAt };
  }

  lastSync(): Job | undefined {
    return this.jobs.latest(SYNC_JOB);
  }

  private async sync(jobId: string): Promise<void> {
    const library = this.plugins.library;
    if (!library) return;
    const albums: LibraryAlbum[] = [];
    let malformed = 0;
    try {
      for await (const page of library.instance.albums(this.shutdown)) {
        if (!Array.isArray(page)) throw new Error('albums() yielded something that is not an array of albums');
        for (const album of page) {
          if (checkAlbum(album)) albums.push(album);
          else malformed++;
        }
      }
      if (this.shutdown.aborted) throw new Error('the server shut down during the sync');
      this.plugins.noteSuccess(library, new Date(this.clock.now()));
    } catch (err: unknown) {
      const failure = new PluginError(library.name, 'albums', { cause: err });
      this.plugins.noteFailure(library, failure, new Date(this.clock.now()));
      this.log.error({ err: failure }, 'library sync failed; the previous catalogue is kept');
      await this.jobs.fail(jobId, failure.message, { albums: albums.length });
      return;
    }
    if (malformed > 0) this.log.warn({ plugin: library.name, malformed }, 'the library backend returned albums without artist or album; they were skipped');
    await this.catalog.replace(albums, new Date(this.clock.now()).toISOString());
    const removed = await this.removeOwned();
    await this.jobs.finish(jobId, { albums: albums.length, removed, skipped: malformed });
    this.log.info({ albums: albums.length, removed }, 'library sync finished');
  }

  private async removeOwned(): Promise<number> {
    return this.store.mutate((data, emit) => {
      let removed = 0;
      for (const item of Object.values(data.wishlist)) {
        if (!this.catalog.owns(item)) continue;
        delete data.wishlist[item.id];
        this.known.removeWanted(item);
        for (const download of Object.values(data.downloads)) if (download.wishlist_id === item.id && download.state !== 'completed') delete data.downloads[download.id];
        emit('wishlist_removed', { artist: item.artist, album: item.album, mbid: item.mbid });
        removed++;
      }
      return removed;
    });
  }
}
