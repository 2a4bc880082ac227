import type { Clock, DownloadUpdate, Logger, PluginStorage, WantedItem } from '@crateflow/sdk';
import { join } from 'node:path';
import { assessTransfers, describeStates, type TransferView } from './assess-transfers.js';
import { batchDestination } from './batch-destination.js';
import { buildSearchTexts } from './build-search-texts.js';
import { newRecord, patch, recordKey, type Candidate, type CandidateFile, type DownloadRecord, type Outcome } from './download-record.js';
import { enqueueGroups, localFiles } from './candidate-layout.js';
import { filesOnDisk } from './files-on-disk.js';
import { FolderClaims } from './folder-claims.js';
import { localFolder } from './local-folder.js';
import { remoteFolderName } from './remote-path.js';
import { searchStep } from './search-phase.js';
import { SearchPacing } from './search-pacing.js';
import type { EnqueueOutcome, SlskdApi } from './slskd-api.js';
import type { SlskdConfig } from './slskd-config.schema.js';
import { supportsBatches } from './slskd-version.js';

/** Polls in a row that see none of an enqueued file before it is enqueued again (slskd lost it). */
const MISSING_POLLS_BEFORE_REENQUEUE = 3;
/** Steps one status() call may take, so a chain of failing candidates never loops without bound. */
const MAX_STEPS_PER_POLL = 25;

interface Deps {
  api: SlskdApi;
  storage: PluginStorage;
  clock: Clock;
  log: Logger;
  config: SlskdConfig;
  newId(): string;
  /** `config.downloads_dir` made absolute, so every reported download_path is. */
  downloadsDir: string;
  stallMs: number;
}

type Step = DownloadUpdate | 'continue';

/**
 * The slskd download state machine. Every `status()` call advances one download as far as it can without
 * waiting: search → pick candidates → enqueue → poll transfers → files on disk → completed, falling back to the
 * next candidate or query template when a peer is offline, rejects, stalls past `stall_timeout`, or leaves files
 * broken after one retry. The record is saved after every transition, so a restart of Crateflow (or slskd)
 * resumes where it was. When nothing usable is found the download fails with `retry_after_ms`, which puts the
 * wishlist item back to wanted (the sdk's contract for "try again later").
 */
export class SlskdDownloads {
  private readonly pacing: SearchPacing;
  private readonly claims: FolderClaims;
  private batches: Promise<boolean> | undefined;

  constructor(private readonly deps: Deps) {
    this.pacing = new SearchPacing(deps.storage, deps.clock, deps.config.search.min_interval_ms);
    this.claims = new FolderClaims(deps.storage);
  }

  async request(_item: WantedItem): Promise<{ ref: string }> {
    // The search starts on the first poll, so that every slskd failure reaches the core through status().
    const ref = this.deps.newId();
    await this.save(ref, newRecord());
    return { ref };
  }

  async status(ref: string, item: WantedItem): Promise<DownloadUpdate> {
    let record = this.deps.storage.get<DownloadRecord>(recordKey(ref));
    if (!record) {
      this.deps.log.warn({ ref, artist: item.artist, album: item.album }, 'no saved state for this slskd download; starting it again');
      record = newRecord();
      await this.save(ref, record);
    }
    for (let step = 0; step < MAX_STEPS_PER_POLL; step++) {
      const result = await this.step(ref, record, item);
      if (result !== 'continue') return result;
    }
    return { state: record.phase === 'search' ? 'searching' : 'downloading', progress: 0 };
  }

  async cancel(ref: string): Promise<void> {
    const record = this.deps.storage.get<DownloadRecord>(recordKey(ref));
    if (!record) return;
    if (record.phase === 'search' && record.search_id) await this.deps.api.deleteSearch(record.search_id);
    const candidate = record.candidates[record.candidate];
    if (record.phase === 'download' && record.enqueued && candidate) await this.cancelTransfers(candidate);
    await this.claims.release(ref);
    await this.deps.storage.delete(recordKey(ref));
  }

  private async step(ref: string, record: DownloadRecord, item: WantedItem): Promise<Step> {
    switch (record.phase) {
      case 'search': {
        const texts = buildSearchTexts(this.deps.config.search.query_templates, item);
        const text = texts[record.template];
        if (text === undefined) return this.finish(ref, record, this.exhausted(record, texts));
        const deps = { ...this.deps, pacing: this.pacing, save: () => this.save(ref, record), supportsBatches: () => this.supportsBatches() };
        const done = await searchStep(deps, ref, record, item, text);
        return done === 'searching' ? { state: 'searching', progress: 0 } : 'continue';
      }
      case 'download':
        return this.downloadStep(ref, record, item);
      case 'done':
        return toUpdate(record.outcome ?? failure('the download ended without a recorded outcome', null));
    }
  }

  private async downloadStep(ref: string, record: DownloadRecord, item: WantedItem): Promise<Step> {
    const { api, clock, log } = this.deps;
    const candidate = record.candidates[record.candidate];
    if (!candidate) {
      // Every folder of this search failed: the next query template may find other peers.
      patch(record, { phase: 'search', template: record.template + 1, candidates: [], candidate: 0 });
      await this.save(ref, record);
      return 'continue';
    }
    if (!record.enqueued) return this.enqueueCandidate(ref, record, candidate, item);
    const folder = record.folder ?? localFolder(this.deps.downloadsDir, candidate.directory);

    const view = assessTransfers(candidate, await api.userTransfers(candidate.username), clock.now());
    if (view.missing.length > 0) {
      record.missing_polls++;
      if (record.missing_polls >= MISSING_POLLS_BEFORE_REENQUEUE) {
        log.warn({ ref, username: candidate.username, missing: view.missing.length }, 'slskd no longer lists some enqueued files; enqueueing them again');
        const again = await this.enqueueFiles(record, candidate, candidate.files.filter((f) => view.missing.includes(f.filename)));
        if (!again.ok) return this.nextCandidate(ref, record, candidate, again.reason);
        record.missing_polls = 0;
      }
      await this.save(ref, record);
      return { state: 'downloading', progress: Math.min(view.progress, 0.99) };
    }
    if (record.missing_polls !== 0) {
      record.missing_polls = 0;
      await this.save(ref, record);
    }
    const allSucceeded = view.waiting === 0 && view.failed.length === 0;
    const disk = allSucceeded ? await filesOnDisk(localFiles(folder, candidate)) : { present: 0, bytes: 0, absent: [] };
    if (allSucceeded && disk.absent.length === 0) {
      log.info({ ref, username: candidate.username, download_path: folder }, 'slskd download completed and every file is on disk');
      return this.finish(ref, record, { state: 'completed', download_path: folder, error: null, retry_after_ms: null });
    }
    const stalled = await this.checkStall(ref, record, view.bytes + disk.bytes);
    if (stalled) return this.stall(ref, record, candidate, view, allSucceeded ? { folder, absent: disk.absent } : undefined);
    if (view.waiting > 0 || allSucceeded) return { state: 'downloading', progress: Math.min(view.progress, 0.99) };
    return this.handleFailures(ref, record, candidate, view);
  }

  private async enqueueCandidate(ref: string, record: DownloadRecord, candidate: Candidate, item: WantedItem): Promise<Step> {
    const { downloadsDir, clock, log } = this.deps;
    // slskd 0.26+ takes a per-batch destination: one folder per download, whatever the remote folders are called.
    // Older versions use the last remote folder name, so collisions ("FLAC", "CD1") are checked instead.
    const destination = (await this.supportsBatches()) ? batchDestination(item, ref) : null;
    const folder = destination === null ? localFolder(downloadsDir, candidate.directory) : join(downloadsDir, destination);
    if (destination === null) {
      const clash = await this.claims.claim(folder, ref);
      if (clash) return this.nextCandidate(ref, record, candidate, clash);
    }
    patch(record, { destination, folder });
    const outcome = await this.enqueueFiles(record, candidate, candidate.files);
    if (!outcome.ok) return this.nextCandidate(ref, record, candidate, outcome.reason);
    patch(record, { enqueued: true, missing_polls: 0, progress_mark: 0, progress_at: clock.now() });
    await this.save(ref, record);
    log.info({ ref, username: candidate.username, directory: candidate.directory, files: candidate.files.length, download_path: folder }, 'enqueued an album folder in slskd');
    return { state: 'downloading', progress: 0 };
  }

  private async enqueueFiles(record: DownloadRecord, candidate: Candidate, files: readonly CandidateFile[]): Promise<EnqueueOutcome> {
    const { api } = this.deps;
    if (record.destination === null) return api.enqueue(candidate.username, files);
    let failedCount = 0;
    for (const group of enqueueGroups(candidate, files, record.destination)) {
      const outcome = await api.enqueueBatch(candidate.username, group.files, group.destination);
      if (!outcome.ok) return outcome;
      failedCount += outcome.failedCount;
    }
    return { ok: true, failedCount };
  }

  /** Notes progress; answers true once nothing has moved for `stall_timeout`. */
  private async checkStall(ref: string, record: DownloadRecord, mark: number): Promise<boolean> {
    const now = this.deps.clock.now();
    if (mark > record.progress_mark || record.progress_at === null) {
      patch(record, { progress_mark: Math.max(mark, record.progress_mark), progress_at: now });
      await this.save(ref, record);
      return false;
    }
    return now - record.progress_at > this.deps.stallMs;
  }

  private async stall(ref: string, record: DownloadRecord, candidate: Candidate, view: TransferView, notMoved?: { folder: string; absent: string[] }): Promise<Step> {
    const limit = this.deps.config.stall_timeout;
    if (notMoved) {
      const reason = `slskd reports every file done but ${notMoved.absent.length} of ${candidate.files.length} are not in ${notMoved.folder} with their size after ${limit} (is downloads_dir slskd's downloads directory as Crateflow sees it?)`;
      return this.nextCandidate(ref, record, candidate, reason);
    }
    await this.cancelTransfers(candidate, view);
    return this.nextCandidate(ref, record, candidate, `no progress for ${limit} (${describeStates(view.states)}); cancelled`);
  }

  private async handleFailures(ref: string, record: DownloadRecord, candidate: Candidate, view: TransferView): Promise<Step> {
    const total = candidate.files.length;
    const first = view.failed[0];
    const sample = first ? `${first.state}${first.exception ? `: ${first.exception}` : ''}` : '';
    if (view.failed.some((f) => f.state.includes('Rejected'))) {
      return this.nextCandidate(ref, record, candidate, `rejected ${view.failed.length} of ${total} files (${sample})`);
    }
    const retryable = view.failed.filter((f) => !record.retried.includes(f.filename));
    if (retryable.length === 0) {
      return this.nextCandidate(ref, record, candidate, `${view.failed.length} of ${total} files failed again after a retry (${sample})`);
    }
    this.deps.log.warn({ ref, username: candidate.username, failed: retryable.length, total, sample }, 'some slskd transfers failed; retrying them once');
    const retry = await this.enqueueFiles(record, candidate, retryable.map((f) => ({ filename: f.filename, size: f.size })));
    if (!retry.ok) return this.nextCandidate(ref, record, candidate, `${retryable.length} of ${total} files failed and the retry was refused (${retry.reason})`);
    record.retried.push(...retryable.map((f) => f.filename));
    await this.save(ref, record);
    return { state: 'downloading', progress: Math.min(view.progress, 0.99) };
  }

  private async nextCandidate(ref: string, record: DownloadRecord, failed: Candidate, reason: string): Promise<Step> {
    this.deps.log.warn({ ref, username: failed.username, directory: failed.directory, reason }, 'slskd candidate failed; trying the next best');
    record.notes.push(`${failed.username} (${remoteFolderName(failed.directory)}): ${reason}`);
    if (!record.failed_users.includes(failed.username)) record.failed_users.push(failed.username);
    let next = record.candidate + 1;
    while (next < record.candidates.length && record.failed_users.includes(record.candidates[next]?.username ?? '')) next++;
    patch(record, { candidate: next, enqueued: false, retried: [], missing_polls: 0, destination: null, folder: null, progress_mark: 0, progress_at: null });
    await this.claims.release(ref);
    await this.save(ref, record);
    return 'continue';
  }

  /** Cancels (and hides) a candidate's unfinished transfers, so a stalled peer does not deliver half an album later. */
  private async cancelTransfers(candidate: Candidate, view?: TransferView): Promise<void> {
    const { api, clock } = this.deps;
    const current = view ?? assessTransfers(candidate, await api.userTransfers(candidate.username), clock.now());
    for (const transfer of current.unfinished) await api.cancelTransfer(candidate.username, transfer.id);
  }

  private exhausted(record: DownloadRecord, texts: readonly string[]): Outcome {
    const { config } = this.deps;
    if (texts.length === 0) return failure('no query template could be filled in for this item (see search.query_templates)', config.retry_after_no_results_ms);
    if (record.failed_users.length > 0) {
      return failure(`every slskd candidate failed: ${record.notes.slice(-5).join('; ')}`, config.retry_after_all_failed_ms);
    }
    const notes = record.notes.length > 0 ? ` (${record.notes.slice(-3).join('; ')})` : '';
    return failure(`no usable slskd search results for ${texts.map((t) => `"${t}"`).join(' or ')}${notes}`, config.retry_after_no_results_ms);
  }

  private async finish(ref: string, record: DownloadRecord, outcome: Outcome): Promise<DownloadUpdate> {
    // Only the outcome is kept: the core asks again only if it lost the answer.
    patch(record, { phase: 'done', outcome, candidates: [], search_id: null, retried: [] });
    await this.claims.release(ref);
    await this.save(ref, record);
    return toUpdate(outcome);
  }

  private supportsBatches(): Promise<boolean> {
    // Asked once per process; a failed check is asked again at the next enqueue.
    this.batches ??= supportsBatches(this.deps.api).catch((err: unknown) => {
      this.batches = undefined;
      throw err;
    });
    return this.batches;
  }

  private save(ref: string, record: DownloadRecord): Promise<void> {
    return this.deps.storage.set(recordKey(ref), record);
  }
}

function failure(error: string, retryAfterMs: number | null): Outcome {
  return { state: 'failed', download_path: null, error, retry_after_ms: retryAfterMs };
}

function toUpdate(outcome: Outcome): DownloadUpdate {
  if (outcome.state === 'completed' && outcome.download_path) return { state: 'completed', progress: 1, download_path: outcome.download_path };
  return {
    state: 'failed',
    progress: 0,
    error: outcome.error ?? 'the download failed',
    ...(outcome.retry_after_ms === null ? {} : { retry_after_ms: outcome.retry_after_ms }),
  };
}
