import { inject, injectable } from 'tsyringe';
import { LibraryAlbum, type Clock, type Logger } from '@crateflow/sdk';
import { Tokens } from '../di/tokens.js';
import { ServiceUnavailableError } from '../errors/service-unavailable-error.js';
import { JobLog } from '../jobs/job-log.js';
import type { Job } from '../jobs/job.schema.js';
import { PluginError } from '../plugins/plugin-error.js';
import type { LoadedPlugins } from '../plugins/plugin-host.js';
import { eventDataOf } from '../events/event-data-of.js';
import { UnitOfWork } from '../events/unit-of-work.js';
import { compileStrictOnFirstUse } from '../schema/ajv.js';
import { withoutControlCharacters } from '../schema/printable-text.js';
import { WishlistTable } from '../wishlist/wishlist-table.js';
import { DownloadService } from '../downloads/download-service.js';
import { DownloadsTable } from '../downloads/downloads-table.js';
import { LibraryTable } from './library-table.js';

const albumValidator = compileStrictOnFirstUse<LibraryAlbum>(LibraryAlbum);
const SYNC_JOB = 'library_sync';

interface RunningSync {
  job: Job;
  /** Settles when the sync has ended and its job is recorded as completed or failed; never rejects. */
  done: Promise<void>;
}

/**
 * Library sync: reads every album from the library backend, page by page, replaces the catalogue, and removes
 * the wishlist items the user now owns (firing `wishlist_removed` for each), cancelling their downloads the way
 * `DELETE /wishlist/{id}` does. Only one sync runs at a time: a request during a sync gets the running job.
 *
 * An empty answer after a library that held albums fails the sync and keeps the last catalogue: a Navidrome or
 * Jellyfin in the middle of a rescan, or a music folder on a NAS that is not mounted, would otherwise empty
 * the library, and every album would look missing until the next sync.
 */
@injectable()
export class LibraryService {
  private running: Promise<RunningSync> | undefined;

  constructor(
    @inject(LibraryTable) private readonly catalog: LibraryTable,
    @inject(WishlistTable) private readonly wishlist: WishlistTable,
    @inject(DownloadsTable) private readonly downloadsTable: DownloadsTable,
    @inject(UnitOfWork) private readonly unitOfWork: UnitOfWork,
    @inject(DownloadService) private readonly downloads: DownloadService,
    @inject(JobLog) private readonly jobs: JobLog,
    @inject(Tokens.Plugins) private readonly plugins: LoadedPlugins,
    @inject(Tokens.Clock) private readonly clock: Clock,
    @inject(Tokens.Log) private readonly log: Logger,
    @inject(Tokens.ShutdownSignal) private readonly shutdown: AbortSignal,
  ) {}

  /** Starts a sync (or returns the one already running) without waiting for it. */
  async startSync(trigger: Job['trigger']): Promise<RunningSync> {
    if (!this.running) {
      if (!this.plugins.library) throw new ServiceUnavailableError('no library backend is configured');
      // Claimed before the first await, so two requests arriving together share one sync.
      const starting = this.begin(trigger);
      this.running = starting;
      starting.catch((err: unknown) => {
        // The caller that asked for this sync gets the error; only the claim must go, so a later request can try.
        this.log.debug({ err }, 'library sync could not start');
        if (this.running === starting) this.running = undefined;
      });
    }
    return this.running;
  }

  /** Waits for a running sync to end (on shutdown, so its job is recorded before the store closes). */
  async whenIdle(): Promise<void> {
    // A sync that could not start has no work left; its error went to the request that asked for it.
    const sync = await this.running?.catch(() => undefined);
    await sync?.done;
  }

  private async begin(trigger: Job['trigger']): Promise<RunningSync> {
    const job = await this.jobs.start(SYNC_JOB, trigger);
    return { job, done: this.sync(job.id) };
  }

  /** Albums in shelf order; with `q`, those whose artist and title hold each of its words as a word prefix. */
  list(filter: { q?: string; limit: number; offset: number }) {
    const { items, total } = filter.q ? this.catalog.search(filter.q, filter.offset, filter.limit) : this.catalog.page(filter.offset, filter.limit);
    return { items, total, limit: filter.limit, offset: filter.offset, synced_at: this.catalog.syncedAt };
  }

  lastSync(): Job | undefined {
    return this.jobs.latest(SYNC_JOB);
  }

  /** Runs one sync to its end; every outcome, even a store that cannot be written, ends up logged, never thrown. */
  private async sync(jobId: string): Promise<void> {
    const library = this.plugins.library;
    if (!library) {
      this.release();
      await this.fail(jobId, 'no library backend is configured', {});
      return;
    }
    const albums: LibraryAlbum[] = [];
    let malformed = 0;
    const checkAlbum = albumValidator();
    try {
      for await (const page of library.instance.albums(this.shutdown)) {
        if (!Array.isArray(page)) throw new Error('albums() yielded something that is not an array of albums');
        for (const album of page) {
          if (checkAlbum(album)) albums.push(withPrintableNames(album));
          else malformed++;
        }
      }
      if (this.shutdown.aborted) throw new Error('the server shut down during the sync');
      const last = this.catalog.count;
      if (albums.length === 0 && malformed === 0 && last > 0) {
        throw new Error(
          `the library answered no albums, but the last sync found ${last}; the last library is kept ` +
            '(a server still scanning, or a music folder that is not mounted?) and the sync counts as failed until albums are back',
        );
      }
      this.plugins.noteSuccess(library, new Date(this.clock.now()));
    } catch (err: unknown) {
      const failure = new PluginError(library.name, 'albums', { cause: err });
      this.plugins.noteFailure(library, failure, new Date(this.clock.now()));
      this.log.error({ err: failure }, 'library sync failed; the previous catalogue is kept');
      this.release();
      await this.fail(jobId, failure.message, { albums: albums.length });
      return;
    }
    if (malformed > 0) this.log.warn({ plugin: library.name, malformed }, 'the library backend returned albums without artist or album; they were skipped');
    let released = false;
    try {
      await this.catalog.replace(albums, new Date(this.clock.now()).toISOString());
      const removed = await this.removeOwned();
      this.release();
      released = true;
      await this.jobs.finish(jobId, { albums: albums.length, removed, skipped: malformed });
      this.log.info({ albums: albums.length, removed }, 'library sync finished');
    } catch (err: unknown) {
      this.log.error({ err }, 'library sync could not save its result');
      if (!released) this.release(); // once released, a new sync may hold the claim
      await this.fail(jobId, `the sync result could not be saved: ${err instanceof Error ? err.message : String(err)}`, { albums: albums.length });
    }
  }

  /**
   * Lets the next sync start. Called in the same turn of the event loop as the job's status leaves `running`
   * (JobLog changes it before its first await), so whoever sees the job ended can start a new sync at once.
   */
  private release(): void {
    this.running = undefined;
  }

  private async fail(jobId: string, error: string, summary: Record<string, number>): Promise<void> {
    await this.jobs.fail(jobId, error, summary).catch((err: unknown) =>
      // Safe to go on: a job left "running" is marked interrupted at the next start (JobLog.failInterrupted).
      this.log.error({ err, job: jobId }, 'could not record the library sync as failed'),
    );
  }

  private async removeOwned(): Promise<number> {
    // The same cancellation as DELETE /wishlist/{id}: the client is told (a blackhole request file removed, slskd
    // transfers cancelled) before the item goes. Finished downloads are archived, where they stay listed.
    const owned = this.wishlist.owned();
    if (owned.length > 0) await this.downloads.cancelFor(new Set(owned.map((item) => item.id)));
    return this.unitOfWork.mutate((emit) => {
      // Asked again in the change: items added or handed off since the cancellation above go too.
      const removed: string[] = [];
      for (const item of this.wishlist.owned()) {
        this.wishlist.remove(item.id);
        emit('wishlist_removed', eventDataOf(item));
        removed.push(item.id);
      }
      // Downloads started or finished since the cancellation above.
      if (removed.length > 0) this.downloadsTable.retireFor(removed);
      return removed.length;
    });
  }
}

/**
 * `album` with control characters taken out of its names: a stray NUL in a tag is not refused (one odd tag must not
 * fail a sync of thousands of albums), nor stored, as the API refuses it in names it is sent.
 */
function withPrintableNames(album: LibraryAlbum): LibraryAlbum {
  const names = [album.artist, album.album, ...(album.artists ?? [])];
  if (names.every((name) => withoutControlCharacters(name) === name)) return album; // nearly always: no copy
  const artists = album.artists?.map(withoutControlCharacters);
  return {
    ...album,
    artist: withoutControlCharacters(album.artist),
    album: withoutControlCharacters(album.album),
    ...(artists ? { artists } : {}),
  };
}
