import { isAbsolute, resolve } from 'node:path';
import { inject, injectable } from 'tsyringe';
import { DownloadUpdate, isCredentialsError, type Clock, type Logger, type WantedItem } from '@crateflow/sdk';
import type { AppConfig } from '../config/app-config.schema.js';
import { Tokens } from '../di/tokens.js';
import { eventDataOf } from '../events/event-data-of.js';
import { ConflictError } from '../errors/conflict-error.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { JobLog } from '../jobs/job-log.js';
import { guardPluginCall } from '../plugins/guard-plugin-call.js';
import type { LoadedPluginOf, LoadedPlugins } from '../plugins/plugin-host.js';
import { compileStrictOnFirstUse } from '../schema/ajv.js';
import { formatSchemaErrors } from '../schema/format-schema-errors.js';
import { UnitOfWork } from '../events/unit-of-work.js';
import { releaseFieldsOf } from '../wishlist/wishlist-item-from.js';
import type { WishlistItem } from '../wishlist/wishlist-item.schema.js';
import { WishlistTable } from '../wishlist/wishlist-table.js';
import type { Download } from './download.schema.js';
import { DownloadsTable } from './downloads-table.js';

const PLUGIN_CALL_TIMEOUT_MS = 60_000;
// The longest `retry_after_ms` a download client's failure is honoured with. A client's hint of 1e300 ms would make
// `not_before` no date at all (toISOString throws mid-commit, and the item was tried again at once); a year is
// longer than any wait a client means, and still a date people can read.
const MAX_RETRY_AFTER_MS = 365 * 86_400_000;
/** `poll`: the scheduled pass over everything; `hand-off`: only start and request what is wanted. */
type Pass = 'poll' | 'hand-off';
const ACTIVE: ReadonlySet<Download['state']> = new Set(['queued', 'searching', 'downloading']);
const updateValidator = compileStrictOnFirstUse<DownloadUpdate>(DownloadUpdate);

/**
 * Hands wanted items to the download client and follows each download to its end. One `tick()` (run by the
 * scheduler every `download_client.poll_interval`, and at once by `handOff()` when an item is approved) starts
 * new downloads up to `max_active`, asks the client about each active one, and records every transition.
 * `download_completed` fires exactly once per download, in the same commit that marks it completed.
 */
@injectable()
export class DownloadService {
  constructor(
    @inject(DownloadsTable) private readonly downloads: DownloadsTable,
    @inject(WishlistTable) private readonly wishlist: WishlistTable,
    @inject(UnitOfWork) private readonly unitOfWork: UnitOfWork,
    @inject(Tokens.Plugins) private readonly plugins: LoadedPlugins,
    @inject(JobLog) private readonly jobs: JobLog,
    @inject(Tokens.Config) private readonly config: AppConfig,
    @inject(Tokens.Clock) private readonly clock: Clock,
    @inject(Tokens.Log) private readonly log: Logger,
    @inject(Tokens.NewId) private readonly newId: () => string,
  ) {}

  /** The pass in progress, so a hand-off and the scheduler never run two passes at once. */
  private running: Promise<void> | undefined;
  /** What was asked for while a pass ran (it may be past the wishlist already): run it right after. */
  private next: Pass | undefined;
  private stopped = false;

  /** Downloads of items on the wishlist (newest first), then the finished ones of items gone from it, most recently archived first. */
  list(filter: { status?: Download['state']; limit: number; offset: number }): { items: Download[]; total: number; limit: number; offset: number } {
    const { items, total } = this.downloads.page({ ...(filter.status ? { state: filter.status } : {}), offset: filter.offset, limit: filter.limit });
    return { items, total, limit: filter.limit, offset: filter.offset };
  }

  /** One full pass (start wanted items, poll active ones); joins, then repeats, a pass already running. */
  tick(): Promise<void> {
    return this.run('poll');
  }

  /**
   * Starts the download of what was just approved now instead of at the next poll: the poll interval is for
   * following progress, and a person who approves an album expects the download client to get it at once.
   * A hand-off only starts and requests; it does not poll, so a burst of approvals adds no status calls.
   */
  handOff(): void {
    if (this.stopped) return;
    this.run('hand-off').catch((err: unknown) => this.log.error({ err }, 'handing approved items to the download client failed; the next poll tries again'));
  }

  /** No more hand-offs (shutdown); waits for a pass in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running?.catch(() => undefined); // its failure was logged by whoever started it
  }

  private run(pass: Pass): Promise<void> {
    if (this.running) {
      this.next = this.next === 'poll' || pass === 'poll' ? 'poll' : 'hand-off';
      return this.running;
    }
    const loop = async () => {
      let current: Pass | undefined = pass;
      try {
        while (current && !(this.stopped && current === 'hand-off')) {
          this.next = undefined;
          await this.runOnce(current);
          current = this.next;
        }
      } finally {
        this.running = undefined;
      }
    };
    this.running = loop();
    return this.running;
  }

  private async runOnce(pass: Pass): Promise<void> {
    const client = this.plugins.downloadClient;
    if (!client) return;
    await this.startWanted(client);
    const errors: string[] = [];
    for (const { id } of this.downloads.active()) {
      // Read again at its turn: an earlier call of this pass may have taken long enough for it to end or go.
      const download = this.liveDownload(id);
      if (!download || !ACTIVE.has(download.state)) continue;
      const item = this.wishlist.get(download.wishlist_id);
      if (!item) continue;
      if (pass === 'hand-off' && download.client_ref !== undefined) continue; // progress is the poll's business
      const problem = download.client_ref === undefined ? await this.request(client, download, item) : await this.poll(client, download, item);
      if (problem) errors.push(problem);
    }
    if (errors.length > 0) await this.jobs.recordFailure('download_poll', [...new Set(errors)].join('; '));
  }

  /** Puts a failed download back in line (409 unless it failed). */
  async retry(id: string): Promise<Download> {
    return this.unitOfWork.mutate(() => {
      const download = this.downloads.get(id);
      if (!download) throw new NotFoundError('download', id);
      // An archived download is a completed one whose item is gone (the only kind kept): never failed.
      if (download.state !== 'failed' || this.downloads.isArchived(id)) {
        throw new ConflictError(`download "${id}" is ${download.state}; only failed downloads can be retried`, { current_state: download.state });
      }
      const item = this.wishlist.get(download.wishlist_id);
      if (!item) throw new ConflictError(`download "${id}" belongs to a wishlist item that was removed`, { wishlist_id: download.wishlist_id });
      this.restart(download, this.plugins.downloadClient?.name ?? download.client);
      this.downloads.update(download);
      const { not_before: _retried, ...rest } = item;
      this.wishlist.update({ ...rest, status: 'downloading' });
      return download;
    });
  }

  /**
   * Stops the downloads of wishlist items that are being removed, and takes them out of the live ones (finished
   * ones archived, see DownloadsTable.retireFor). One query and one change however many items go: a library sync
   * can remove tens of thousands at once.
   */
  async cancelFor(wishlistIds: ReadonlySet<string>): Promise<void> {
    const client = this.plugins.downloadClient;
    const mine = this.downloads.ofWishlistItems(wishlistIds);
    for (const download of mine) {
      const ref = download.client_ref;
      if (client?.instance.cancel && ref !== undefined && ACTIVE.has(download.state)) {
        const cancel = client.instance.cancel.bind(client.instance);
        await guardPluginCall(client.name, 'cancel', PLUGIN_CALL_TIMEOUT_MS, () => cancel(ref)).catch((err: unknown) =>
          this.log.warn({ err, download: download.id }, 'the download client could not cancel; the download is forgotten anyway'),
        );
      }
    }
    if (mine.length > 0) await this.unitOfWork.mutate(() => this.downloads.retireFor(wishlistIds));
  }

  /** Downloads by state, the archived ones included (as `GET /downloads?status=` counts them). */
  counts(): Record<Download['state'], number> {
    return this.downloads.counts();
  }

  private async startWanted(client: LoadedPluginOf<'download-client'>): Promise<void> {
    const room = this.config.download_client.max_active - this.downloads.active().length;
    if (room <= 0) return;
    // Items back in line after a failed attempt first (they have waited longest), then those waiting for their first.
    const due = this.wishlist.dueForDownload(this.clock.now(), room);
    if (due.length === 0) return;
    await this.unitOfWork.mutate(() => {
      for (const { id } of due) {
        // Read again in the change: removed or handed off meanwhile, it is not started twice.
        const wanted = this.wishlist.get(id);
        if (!wanted || wanted.status !== 'wanted') continue;
        const { not_before: _due, ...rest } = wanted;
        const item: WishlistItem = { ...rest, status: 'downloading' };
        // A waiting item is numbered among the handed-off ones with its first download, in this commit.
        const first = this.wishlist.isWaiting(id);
        if (first) this.wishlist.enter(item);
        else this.wishlist.update(item);
        // An item back from "failed, try again later" reuses its download, so hourly retries of an album
        // nobody shares do not pile up one failed record per attempt.
        const previous = first ? undefined : this.downloads.latestFor(id, 'failed');
        if (previous) {
          this.restart(previous, client.name);
          this.downloads.update(previous);
          continue;
        }
        const download: Download = {
          id: this.newId(), wishlist_id: item.id, artist: item.artist, ...(item.album !== undefined ? { album: item.album } : {}),
          client: client.name, state: 'queued', progress: 0, attempts: 1, created_at: this.now(), updated_at: this.now(),
        };
        this.downloads.insert(download);
      }
    });
  }

  /** A download still live (its item on the wishlist, not archived), as it is now. */
  private liveDownload(id: string): Download | undefined {
    const download = this.downloads.get(id);
    return download && !this.downloads.isArchived(id) ? download : undefined;
  }

  private async request(client: LoadedPluginOf<'download-client'>, download: Download, item: WishlistItem): Promise<string | undefined> {
    try {
      const { ref } = await guardPluginCall(client.name, 'request', PLUGIN_CALL_TIMEOUT_MS, () => client.instance.request(wantedItem(item)));
      if (typeof ref !== 'string' || ref.length === 0) throw new Error(`plugin "${client.name}" returned no ref from request()`);
      this.plugins.noteSuccess(client, new Date(this.clock.now()));
      const kept = await this.unitOfWork.mutate(() => {
        const current = this.liveDownload(download.id);
        if (!current) return false;
        const { error: _reached, ...rest } = current;
        this.downloads.update({ ...rest, client_ref: ref, updated_at: this.now() });
        return true;
      });
      // Cancelled (its wishlist item deleted) while the client took the request: cancelFor() found no ref to
      // cancel, so take the request back here, or the client keeps working on an album nobody wants.
      const cancel = client.instance.cancel?.bind(client.instance);
      if (!kept && cancel) {
        await guardPluginCall(client.name, 'cancel', PLUGIN_CALL_TIMEOUT_MS, () => cancel(ref)).catch((err: unknown) =>
          this.log.warn({ err, download: download.id }, 'the download client could not cancel a request made for a deleted item'),
        );
      }
      return undefined;
    } catch (err: unknown) {
      return this.noteError(client, download, err);
    }
  }

  private async poll(client: LoadedPluginOf<'download-client'>, download: Download, item: WishlistItem): Promise<string | undefined> {
    const ref = download.client_ref ?? '';
    let update: DownloadUpdate;
    try {
      const answer: unknown = await guardPluginCall(client.name, 'status', PLUGIN_CALL_TIMEOUT_MS, () => client.instance.status(ref, wantedItem(item)));
      const checkUpdate = updateValidator();
      if (!checkUpdate(answer)) throw new Error(`plugin "${client.name}" returned a malformed status: ${formatSchemaErrors(checkUpdate.errors).map((p) => `${p.path} ${p.message}`).join(', ')}`);
      if (answer.state === 'completed' && !answer.download_path) throw new Error(`plugin "${client.name}" reported completion without a download_path`);
      update = answer;
      this.plugins.noteSuccess(client, new Date(this.clock.now()));
    } catch (err: unknown) {
      return this.noteError(client, download, err);
    }
    await this.apply(download.id, update);
    return undefined;
  }

  private async apply(downloadId: string, update: DownloadUpdate): Promise<void> {
    const current = this.liveDownload(downloadId);
    if (!current || !ACTIVE.has(current.state)) return;
    const unchanged = current.state === update.state && current.progress === update.progress && current.error === update.error;
    if (unchanged) return; // no commit for a poll that learned nothing
    await this.unitOfWork.mutate((emit) => {
      // Read again in the change: only the change that moves it out of the active states fires an event.
      const download = this.liveDownload(downloadId);
      const item = download ? this.wishlist.get(download.wishlist_id) : undefined;
      if (!download || !ACTIVE.has(download.state)) return;
      download.state = update.state;
      download.progress = update.state === 'completed' ? 1 : update.progress;
      download.updated_at = this.now();
      if (update.error !== undefined) download.error = update.error;
      else delete download.error;
      if (update.state === 'completed' && update.download_path) {
        const downloadPath = absolutePath(update.download_path);
        download.download_path = downloadPath;
        if (item) {
          item.status = 'downloaded';
          item.download_path = downloadPath;
        }
        emit('download_completed', { ...eventDataOf(item ?? download), download_path: downloadPath });
      } else if (update.state === 'failed' && item) {
        if (update.retry_after_ms !== undefined) {
          item.status = 'wanted';
          item.not_before = new Date(this.clock.now() + Math.min(update.retry_after_ms, MAX_RETRY_AFTER_MS)).toISOString();
        } else {
          item.status = 'failed';
        }
      }
      this.downloads.update(download);
      if (item && (update.state === 'completed' || update.state === 'failed')) this.wishlist.update(item);
    });
    if (update.state === 'completed') void this.refreshLibrary(update.download_path === undefined ? undefined : absolutePath(update.download_path));
  }

  private async refreshLibrary(downloadPath: string | undefined): Promise<void> {
    const library = this.plugins.library;
    const refresh = library?.instance.refresh?.bind(library.instance);
    if (!library || !refresh || !this.config.library.refresh_after_download) return;
    await guardPluginCall(library.name, 'refresh', PLUGIN_CALL_TIMEOUT_MS, () => refresh(downloadPath ? { download_path: downloadPath } : {})).catch((err: unknown) =>
      this.log.warn({ err }, 'the library backend could not start a rescan after a download'),
    );
  }

  /** Puts a download back at the start, as a new attempt (the caller writes it, inside its change). */
  private restart(download: Download, client: string): void {
    Object.assign(download, { client, state: 'queued', progress: 0, attempts: download.attempts + 1, updated_at: this.now() });
    delete download.client_ref;
    delete download.error;
    delete download.download_path;
  }

  /** Keeps the download as it is, records why the client could not be reached, and says so in the log. */
  private async noteError(client: LoadedPluginOf<'download-client'>, download: Download, err: unknown): Promise<string> {
    this.plugins.noteFailure(client, err, new Date(this.clock.now()));
    const message = err instanceof Error ? err.message : String(err);
    // By the stable code (the sdk's guard), not the class: a third-party plugin may bring its own copy of the sdk.
    const credentials = isCredentialsError(err instanceof Error ? err.cause : undefined);
    this.log[credentials ? 'error' : 'warn']({ err, download: download.id }, 'download client call failed; the download is kept and retried at the next poll');
    if (download.error !== message) {
      await this.unitOfWork.mutate(() => {
        const current = this.liveDownload(download.id);
        if (current) this.downloads.update({ ...current, error: message, updated_at: this.now() });
      });
    }
    return message;
  }

  private now(): string {
    return new Date(this.clock.now()).toISOString();
  }
}

/**
 * download_path as other programs (Node-RED, a library scanner, a webhook receiver) can use it: they do not share
 * Crateflow's working directory, so a client's relative path is resolved against it here, where it means something.
 */
function absolutePath(path: string): string {
  return isAbsolute(path) ? path : resolve(path);
}

function wantedItem(item: WishlistItem): WantedItem {
  return {
    id: item.id,
    artist: item.artist,
    type: item.type,
    ...releaseFieldsOf(item),
  };
}
