import type { Clock, Logger, WantedItem } from '@crateflow/sdk';
import { randomUUID } from 'node:crypto';
import { patch, type DownloadRecord } from './download-record.js';
import { rankCandidates } from './rank-candidates.js';
import type { SlskdApi, SlskdSearchInfo } from './slskd-api.js';
import type { SlskdConfig } from './slskd-config.schema.js';
import type { SearchPacing } from './search-pacing.js';

/** What one search step did: the caller saves the record and either answers `searching` or steps on. */
export type SearchStep = 'searching' | 'continue';

interface Deps {
  api: SlskdApi;
  clock: Clock;
  log: Logger;
  config: SlskdConfig;
  pacing: SearchPacing;
  save(): Promise<void>;
  /** slskd 0.26+: a multi-disc album can be fetched into one folder (a batch destination per disc). */
  supportsBatches(): Promise<boolean>;
}

/**
 * The search half of a download: start a search (spaced out), wait for slskd to finish it, read its
 * responses and turn them into ranked candidates on the record. Three slskd behaviours shape it (slskd-api.md §4,
 * slskd's `src/slskd/Search/SearchService.cs`):
 * - slskd runs at most 2 searches at once; a queued one is not "searching" yet, so `max_wait_ms` counts from
 *   when it is first seen `InProgress`;
 * - on completion slskd saves `isComplete: true` first and the responses (with `endedAt`) afterwards, so a
 *   complete search with `responseCount > 0` and no responses is read again, never deleted unread;
 * - a common title gives megabytes of responses; a set too big even for the raised cap ends that search
 *   (the next query template is tried) instead of looping on "unreachable".
 */
export async function searchStep(deps: Deps, ref: string, record: DownloadRecord, item: WantedItem, text: string): Promise<SearchStep> {
  const { api, clock, config, log, pacing, save } = deps;
  if (record.search_id === null) {
    if (pacing.waitMs() > 0) return 'searching';
    const id = randomUUID();
    const sentAt = clock.now();
    patch(record, { search_id: id, search_started_at: sentAt, search_running_at: null, responses_pending_at: null });
    // Saved before the POST: after a crash in between, the next poll finds the search by this id (or a 404).
    await pacing.note();
    await save();
    const started = await api.startSearch({
      id,
      searchText: text,
      searchTimeout: config.search.search_timeout_ms,
      responseLimit: config.search.response_limit,
      fileLimit: config.search.file_limit,
    });
    // `sent_at` is the plugin's own time for the POST, the one the pacing spaced: where slskd receives it adds
    // network and scheduling jitter, so the spacing of searches is checked (and diagnosed) from this value.
    log.info({ ref, search_id: id, search_text: text, started, sent_at: sentAt }, 'slskd search started');
    return 'searching';
  }
  const id = record.search_id;
  const info = await api.search(id);
  if (!info) {
    // slskd does not know the search (never created after a 429/409, deleted, or its database was reset).
    log.info({ ref, search_id: id }, 'slskd does not know the search; starting it again');
    record.search_id = null;
    await save();
    return 'continue';
  }
  if (!info.isComplete) return waitForSearch(deps, ref, record, info);

  // The completion race: no endedAt yet means the responses are not saved yet, whatever isComplete says.
  const read = info.endedAt === undefined && info.responseCount > 0 ? undefined : await api.searchResponses(id, config.search.file_limit);
  if (read?.ok === false) {
    log.warn({ ref, search_id: id, search_text: text, max_bytes: read.tooLargeBytes }, 'slskd search responses are too big to read; trying the next query');
    record.notes.push(`search "${text}": responses over ${Math.round(read.tooLargeBytes / 1_048_576)} MiB (lower search.file_limit)`);
    return endSearch(deps, record, true);
  }
  const responses = read?.responses ?? [];
  if (responses.length === 0 && info.responseCount > 0) {
    record.responses_pending_at ??= clock.now();
    if (clock.now() - record.responses_pending_at <= config.search.max_wait_ms) {
      log.debug({ ref, search_id: id, response_count: info.responseCount }, 'slskd search complete but its responses are not saved yet; reading again');
      await save();
      return 'searching';
    }
    // Left in slskd rather than deleted: its responses may still appear there for a person to look at.
    log.warn({ ref, search_id: id, response_count: info.responseCount }, 'slskd never saved the responses of a completed search; trying the next query');
    return endSearch(deps, record, false);
  }
  const multiDisc = await deps.supportsBatches();
  const candidates = rankCandidates(responses, item, config.quality, new Set(record.failed_users), config.max_candidates, multiDisc);
  const best = candidates[0];
  log.info(
    { ref, search_text: text, state: info.state, responses: responses.length, candidates: candidates.length, best: best ? `${best.username}: ${best.directory}` : null },
    'slskd search finished',
  );
  if (candidates.length > 0) patch(record, { phase: 'download', candidates, candidate: 0, enqueued: false, retried: [], missing_polls: 0 });
  return endSearch(deps, record, true);
}

async function waitForSearch(deps: Deps, ref: string, record: DownloadRecord, info: SlskdSearchInfo): Promise<SearchStep> {
  const { api, clock, config, log, save } = deps;
  if (record.search_running_at === null) {
    if (!info.state.split(', ').includes('InProgress')) return 'searching'; // waiting for one of slskd's 2 search slots
    record.search_running_at = clock.now();
    await save();
  }
  if (clock.now() - record.search_running_at > config.search.max_wait_ms && record.search_id !== null) {
    // Responses are only readable once the search is complete; stopping it completes it.
    log.info({ ref, search_id: record.search_id }, 'slskd search still running after search.max_wait_ms; stopping it');
    await api.stopSearch(record.search_id);
  }
  return 'searching';
}

async function endSearch(deps: Deps, record: DownloadRecord, remove: boolean): Promise<SearchStep> {
  const id = record.search_id;
  if (remove && id !== null) {
    try {
      await deps.api.deleteSearch(id);
    } catch (err: unknown) {
      // Deleting only tidies slskd's search list; the responses are already read, so the download goes on.
      deps.log.warn({ search_id: id, err: err instanceof Error ? err.message : String(err) }, 'could not delete a finished slskd search');
    }
  }
  patch(record, { search_id: null, search_started_at: null, search_running_at: null, responses_pending_at: null });
  if (record.phase === 'search') record.template++; // nothing usable: the next query template
  await deps.save();
  return 'continue';
}
