import type { Clock, DownloadUpdate, Logger, PluginStorage, WantedItem } from '@crateflow/sdk';
import { randomUUID } from 'node:crypto';
import { buildSearchTexts } from './build-search-texts.js';
import { newRecord, recordKey, type Candidate, type DownloadRecord, type Outcome } from './download-record.js';
import { localFolder } from './local-folder.js';
import { rankCandidates } from './rank-candidates.js';
import type { SlskdApi, SlskdTransfer } from './slskd-api.js';
import type { SlskdConfig } from './slskd-config.schema.js';

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
}

type Step = DownloadUpdate | 'continue';

/** How a candidate's files stand in slskd's transfer list. */
interface TransferView {
  progress: number;
  /** Files not yet in a final state (including failures slskd will retry on its own). */
  waiting: number;
  /** Files slskd does not list at all. */
  missing: string[];
  failed: { filename: string; size: number; state: string; exception: string }[];
}

/**
 * The slskd download state machine. Every `status()` call advances one download as far as it can without
 * waiting: search → pick candidates → enqueue → poll transfers → completed, falling back to the next candidate
 * or query template when a peer is offline, rejects, or leaves files broken after one retry. The record is
 * saved after every transition, so a restart of Crateflow (or slskd) resumes where it was.
 */
export class SlskdDownloads {
  constructor(private readonly deps: Deps) {}

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
    const { api } = this.deps;
    if (record.phase === 'search' && record.search_id) await api.deleteSearch(record.search_id);
    const candidate = record.candidates[record.candidate];
    if (record.phase === 'download' && record.enqueued && candidate) {
      const ours = new Set(candidate.files.map((f) => f.filename));
      for (const transfer of await api.userTransfers(candidate.username)) {
        if (ours.has(transfer.filename) && !transfer.state.startsWith('Completed')) await api.cancelTransfer(candidate.username, transfer.id);
      }
    }
    await this.deps.storage.delete(recordKey(ref));
  }

  private step(ref: string, record: DownloadRecord, item: WantedItem): Promise<Step> {
    switch (record.phase) {
      case 'search':
        return this.searchStep(ref, record, item);
      case 'download':
        return this.downloadStep(ref, record);
      case 'done':
        return Promise.resolve(toUpdate(record.outcome ?? failure('the download ended without a recorded outcome', null)));
    }
  }

  private async searchStep(ref: string, record: DownloadRecord, item: WantedItem): Promise<Step> {
    const { api, clock, config, log } = this.deps;
    const texts = buildSearchTexts(config.search.query_templates, item);
    const text = texts[record.template];
    if (record.search_id === null) {
      if (text === undefined) return this.finish(ref, record, this.exhausted(record, texts));
      record.search_id = randomUUID();
      record.search_started_at = clock.now();
      // Saved before the POST: after a crash in between, the next poll finds the search by this id (or a 404).
      await this.save(ref, record);
      const started = await api.startSearch({
        id: record.search_id,
        searchText: text,
        searchTimeout: config.search.search_timeout_ms,
        responseLimit: config.search.response_limit,
        fileLimit: config.search.file_limit,
      });
      log.info({ ref, search_id: record.search_id, search_text: text, started }, 'slskd search started');
      return { state: 'searching', progress: 0 };
    }
    const info = await api.search(record.search_id);
    if (!info) {
      // slskd does not know the search (never created after a 429/409, deleted, or its database was reset).
      log.info({ ref, search_id: record.search_id }, 'slskd does not know the search; starting it again');
      record.search_id = null;
      await this.save(ref, record);
      return 'continue';
    }
    if (!info.isComplete) {
      if (clock.now() - (record.search_started_at ?? clock.now()) > config.search.max_wait_ms) {
        // Responses are only readable once the search is complete; stopping it completes it.
        log.info({ ref, search_id: record.search_id }, 'slskd search still running after search.max_wait_ms; stopping it');
        await api.stopSearch(record.search_id);
      }
      return { state: 'searching', progress: 0 };
    }
    const responses = await api.searchResponses(record.search_id);
    const candidates = rankCandidates(responses, item, config.quality, new Set(record.failed_users), config.max_candidates);
    const best = candidates[0];
    log.info(
      { ref, search_text: text, state: info.state, responses: responses.length, candidates: candidates.length, best: best ? `${best.username}: ${best.directory}` : null },
      'slskd search finished',
    );
    await this.forgetSearch(record.search_id);
    record.search_id = null;
    record.search_started_at = null;
    if (candidates.length === 0) {
      record.template++;
    } else {
      patch(record, { phase: 'download', candidates, candidate: 0, enqueued: false, retried: [], missing_polls: 0 });
    }
    await this.save(ref, record);
    return 'continue';
  }

  private async downloadStep(ref: string, record: DownloadRecord): Promise<Step> {
    const { api, config, log } = this.deps;
    const candidate = record.candidates[record.candidate];
    if (!candidate) {
      // Every folder of this search failed: the next query template may find other peers.
      patch(record, { phase: 'search', template: record.template + 1, candidates: [], candidate: 0 });
      await this.save(ref, record);
      return 'continue';
    }
    if (!record.enqueued) {
      const outcome = await api.enqueue(candidate.username, candidate.files);
      if (!outcome.ok) return this.nextCandidate(ref, record, candidate, outcome.reason);
      record.enqueued = true;
      record.missing_polls = 0;
      await this.save(ref, record);
      log.info({ ref, username: candidate.username, directory: candidate.directory, files: candidate.files.length }, 'enqueued an album folder in slskd');
      return { state: 'downloading', progress: 0 };
    }

    const view = assess(candidate, await api.userTransfers(candidate.username), this.deps.clock.now());
    if (view.missing.length > 0) {
      record.missing_polls++;
      if (record.missing_polls >= MISSING_POLLS_BEFORE_REENQUEUE) {
        log.warn({ ref, username: candidate.username, missing: view.missing.length }, 'slskd no longer lists some enqueued files; enqueueing them again');
        const again = await api.enqueue(candidate.username, candidate.files.filter((f) => view.missing.includes(f.filename)));
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
    if (view.waiting > 0) return { state: 'downloading', progress: Math.min(view.progress, 0.99) };

    if (view.failed.length === 0) {
      const path = localFolder(config.downloads_dir, candidate.directory);
      log.info({ ref, username: candidate.username, download_path: path }, 'slskd download completed');
      return this.finish(ref, record, { state: 'completed', download_path: path, error: null, retry_after_ms: null });
    }
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
    log.warn({ ref, username: candidate.username, failed: retryable.length, total, sample }, 'some slskd transfers failed; retrying them once');
    const retry = await api.enqueue(candidate.username, retryable.map((f) => ({ filename: f.filename, size: f.size })));
    if (!retry.ok) return this.nextCandidate(ref, record, candidate, `${retryable.length} of ${total} files failed and the retry was refused (${retry.reason})`);
    record.retried.push(...retryable.map((f) => f.filename));
    await this.save(ref, record);
    return { state: 'downloading', progress: Math.min(view.progress, 0.99) };
  }

  private async nextCandidate(ref: string, record: DownloadRecord, failed: Candidate, reason: string): Promise<Step> {
    this.deps.log.warn({ ref, username: failed.username, directory: failed.directory, reason }, 'slskd candidate failed; trying the next best');
    record.notes.push(`${failed.username} (${lastSegment(failed.directory)}): ${reason}`);
    if (!record.failed_users.includes(failed.username)) record.failed_users.push(failed.username);
    let next = record.candidate + 1;
    while (next < record.candidates.length && record.failed_users.includes(record.candidates[next]?.username ?? '')) next++;
    patch(record, { candidate: next, enqueued: false, retried: [], missing_polls: 0 });
    await this.save(ref, record);
    return 'continue';
  }

  private exhausted(record: DownloadRecord, texts: readonly string[]): Outcome {
    const { config } = this.deps;
    if (texts.length === 0) return failure('no query template could be filled in for this item (see search.query_templates)', config.retry_after_no_results_ms);
    if (record.notes.length > 0) {
      return failure(`every slskd candidate failed: ${record.notes.slice(-5).join('; ')}`, config.retry_after_all_failed_ms);
    }
    return failure(`no usable slskd search results for ${texts.map((t) => `"${t}"`).join(' or ')}`, config.retry_after_no_results_ms);
  }

  private async finish(ref: string, record: DownloadRecord, outcome: Outcome): Promise<DownloadUpdate> {
    // Only the outcome is kept: the core asks again only if it lost the answer.
    patch(record, { phase: 'done', outcome, candidates: [], search_id: null, retried: [] });
    await this.save(ref, record);
    return toUpdate(outcome);
  }

  private async forgetSearch(id: string): Promise<void> {
    try {
      await this.deps.api.deleteSearch(id);
    } catch (err: unknown) {
      // Deleting only tidies slskd's search list; the responses are already read, so the download goes on.
      this.deps.log.warn({ search_id: id, err: err instanceof Error ? err.message : String(err) }, 'could not delete a finished slskd search');
    }
  }

  private save(ref: string, record: DownloadRecord): Promise<void> {
    return this.deps.storage.set(recordKey(ref), record);
  }
}

function assess(candidate: Candidate, transfers: readonly SlskdTransfer[], now: number): TransferView {
  const latest = new Map<string, SlskdTransfer>();
  for (const transfer of transfers) latest.set(transfer.filename, transfer);
  const view: TransferView = { progress: 0, waiting: 0, missing: [], failed: [] };
  let done = 0;
  let total = 0;
  for (const file of candidate.files) {
    total += file.size;
    const transfer = latest.get(file.filename);
    if (!transfer) {
      view.missing.push(file.filename);
      continue;
    }
    const terminal = transfer.state.startsWith('Completed');
    const succeeded = terminal && transfer.state.includes('Succeeded');
    // slskd 0.26+ retries a failed transfer by itself; the failure is final only when no attempt is pending.
    const retryPending = transfer.nextAttemptAt !== undefined && Date.parse(transfer.nextAttemptAt) > now;
    done += succeeded ? file.size : Math.min(transfer.bytesTransferred, file.size);
    if (!terminal || (!succeeded && retryPending)) view.waiting++;
    else if (!succeeded) view.failed.push({ filename: file.filename, size: file.size, state: transfer.state, exception: transfer.exception ?? '' });
  }
  view.progress = total > 0 ? done / total : 0;
  return view;
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

function lastSegment(directory: string): string {
  return directory.split('\\').at(-1) ?? directory;
}

/** Applies a typed partial change to a record (Object.assign alone would accept any keys). */
function patch(record: DownloadRecord, changes: Partial<DownloadRecord>): void {
  Object.assign(record, changes);
}
