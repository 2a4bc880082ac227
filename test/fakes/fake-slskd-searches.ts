import { randomUUID } from 'node:crypto';
import { isJsonObject } from './is-json-object.js';
import { matchCatalogue, type FakeSlskdPeer, type SearchResponse } from './fake-slskd-catalogue.js';

/** When a search finishes: on the n-th `GET /searches/{id}` while it runs, or once it has run this many milliseconds. */
export type SearchCompletion = { readonly afterPolls: number } | { readonly afterMs: number };

/** Soulseek.NET's `maximumConcurrentSearches` default as slskd configures it: a third search waits for a slot. */
const SEARCH_SLOTS = 2;

export interface SearchRecord {
  readonly id: string;
  readonly searchText: string;
  readonly token: number;
  readonly startedAt: Date;
  /** Collected when the search starts; revealed only once it completes, as slskd writes them at the end. */
  readonly collected: readonly SearchResponse[];
  readonly finalState: string;
  state: string;
  /** When the search got one of the 2 slots and started running (slskd's `startedAt` is set at creation). */
  runningSince?: Date;
  endedAt?: Date;
  /** Polls while running. */
  polls: number;
  /** Reads left in the completion race window: `Completed` is saved, but not yet `endedAt` and the responses. */
  raceReadsLeft: number;
  /** Whether the responses were saved (the second save of slskd's completion). */
  saved: boolean;
}

export type SearchStart = { readonly ok: true; readonly record: SearchRecord } | { readonly ok: false; readonly message: string; readonly status?: 500 };

const INT_MAX = 2_147_483_647;

/** slskd's search store: records keyed by id, completed by polls or time, serialised in slskd's JSON shape. */
export class FakeSlskdSearches {
  private readonly records = new Map<string, SearchRecord>();
  private nextToken = 1000;

  constructor(
    private readonly peers: () => readonly FakeSlskdPeer[],
    private readonly completion: SearchCompletion,
    /** Re-read records lose the `Z` of their timestamps, as after slskd's round trip through SQLite. */
    private readonly sqliteTimestamps: boolean,
    /**
     * How many reads (GET /searches/{id} or /responses) see a completed search before its responses are saved.
     * slskd's `src/slskd/Search/SearchService.cs` saves the `Completed` state from the state-changed callback
     * first and `endedAt` plus the responses afterwards (slskd issue #246), so a client reading in between sees
     * `isComplete: true`, `responseCount > 0` and no responses.
     */
    private readonly completionRaceReads: number,
  ) {}

  start(body: unknown): SearchStart {
    if (!isJsonObject(body)) return { ok: false, message: 'A search request body is required' };
    const searchText = body['searchText'];
    if (typeof searchText !== 'string' || searchText.trim() === '') return { ok: false, message: 'SearchText must not be blank' };
    const id = typeof body['id'] === 'string' ? body['id'].toLowerCase() : randomUUID();
    // An id that exists fails on the database key (SearchService.cs inserts the record), so slskd answers 500, not 400.
    if (this.records.has(id)) return { ok: false, status: 500, message: `SQLite Error 19: 'UNIQUE constraint failed: Searches.Id'.` };
    const numbers = {
      searchTimeout: readInteger(body, 'searchTimeout', 15000),
      responseLimit: readInteger(body, 'responseLimit', 250),
      fileLimit: readInteger(body, 'fileLimit', 25000),
      minimumResponseFileCount: readInteger(body, 'minimumResponseFileCount', 1),
      minimumPeerUploadSpeed: readInteger(body, 'minimumPeerUploadSpeed', 0),
      maximumPeerQueueLength: readInteger(body, 'maximumPeerQueueLength', INT_MAX),
    };
    const invalid = Object.entries(numbers).find(([, value]) => value === undefined);
    if (invalid) return { ok: false, message: `${invalid[0]} must be an integer` };
    // The DTO says seconds (minimum 5); Soulseek.NET then reads the value as milliseconds.
    if ((numbers.searchTimeout ?? 0) < 5) return { ok: false, message: 'SearchTimeout must be at least 5' };
    const token = this.nextToken++;
    const matched = matchCatalogue(this.peers(), searchText, token, {
      filterResponses: body['filterResponses'] !== false,
      minimumResponseFileCount: numbers.minimumResponseFileCount ?? 1,
      minimumPeerUploadSpeed: numbers.minimumPeerUploadSpeed ?? 0,
      maximumPeerQueueLength: numbers.maximumPeerQueueLength ?? INT_MAX,
    });
    const { collected, finalState } = applyLimits(matched, numbers.responseLimit ?? 250, numbers.fileLimit ?? 25000);
    // slskd saves a new search as `Requested` with `startedAt` = now (SearchService.cs) before Soulseek.NET runs it;
    // one waiting for a slot keeps that state and that startedAt, so startedAt is not when it began running.
    const record: SearchRecord = { id, searchText, token, startedAt: new Date(), collected, finalState, state: 'Requested', polls: 0, raceReadsLeft: this.completionRaceReads, saved: false };
    this.records.set(id, record);
    this.fillSlots();
    return { ok: true, record };
  }

  /**
   * Looks a search up; `poll` counts the read towards completion (GET /searches/{id} does). A read of a
   * completed search inside the race window uses one of its reads, then the responses are saved.
   */
  find(id: string, poll = false): SearchRecord | undefined {
    this.settleTimedSearches();
    const record = this.records.get(id.toLowerCase());
    if (!record) return undefined;
    if (isComplete(record) && !record.saved) {
      if (record.raceReadsLeft <= 0) this.save(record);
      else record.raceReadsLeft--;
      return record;
    }
    if (poll && record.runningSince) record.polls++;
    if (!isComplete(record) && record.runningSince && this.progress(record) >= 1) this.finish(record, record.finalState);
    return record;
  }

  /** Every record as it stands, without moving any of them on. */
  all(): SearchRecord[] {
    return [...this.records.values()];
  }

  /** PUT /searches/{id}: stop a running search; what was collected so far is kept. */
  cancel(id: string): boolean {
    const record = this.find(id);
    if (!record) return false;
    if (!isComplete(record)) this.finish(record, 'Completed, Cancelled');
    return true;
  }

  delete(id: string): boolean {
    const deleted = this.records.delete(id.toLowerCase());
    this.fillSlots();
    return deleted;
  }

  /** The search record as slskd serialises it. `fresh` = the in-memory copy POST returns (timestamps keep their `Z`). */
  toJson(record: SearchRecord, options: { includeResponses: boolean; fresh?: boolean }): Record<string, unknown> {
    const complete = isComplete(record);
    const visible = record.saved ? record.collected : [];
    const share = complete ? 1 : record.runningSince ? Math.min(1, this.progress(record)) : 0;
    const fileTotal = record.collected.reduce((sum, response) => sum + response.fileCount, 0);
    const stamp = (date: Date): string => dotNetTimestamp(date, !options.fresh && this.sqliteTimestamps);
    return {
      id: record.id,
      searchText: record.searchText,
      token: record.token,
      state: record.state,
      isComplete: complete,
      startedAt: stamp(record.startedAt),
      endedAt: record.endedAt && record.saved ? stamp(record.endedAt) : undefined,
      responseCount: Math.floor(record.collected.length * share),
      fileCount: Math.floor(fileTotal * share),
      lockedFileCount: 0,
      responses: options.includeResponses ? visible : [],
    };
  }

  /** The responses slskd would return for the record right now: none until they are saved after completion. */
  visibleResponses(record: SearchRecord): readonly SearchResponse[] {
    return record.saved ? record.collected : [];
  }

  /** How many searches hold a slot (running) right now. */
  running(): number {
    return [...this.records.values()].filter((r) => r.runningSince && !isComplete(r)).length;
  }

  private progress(record: SearchRecord): number {
    if ('afterPolls' in this.completion) return this.completion.afterPolls <= 0 ? 1 : record.polls / this.completion.afterPolls;
    const since = record.runningSince?.getTime() ?? Date.now();
    return this.completion.afterMs <= 0 ? 1 : (Date.now() - since) / this.completion.afterMs;
  }

  /** First save of the completion: the state only (isComplete true), no endedAt, no responses yet. */
  private finish(record: SearchRecord, state: string): void {
    record.state = state;
    record.endedAt = new Date();
    if (record.raceReadsLeft <= 0) this.save(record);
    this.fillSlots();
  }

  /** Second save: endedAt and the responses become visible. */
  private save(record: SearchRecord): void {
    record.saved = true;
  }

  /** With time-based completion every running search ends on time, read or not, and frees its slot. */
  private settleTimedSearches(): void {
    if ('afterPolls' in this.completion) return;
    for (const record of this.records.values()) {
      if (record.runningSince && !isComplete(record) && this.progress(record) >= 1) this.finish(record, record.finalState);
    }
  }

  /** Queued searches take free slots in the order they were posted (Soulseek.NET's search semaphore). */
  private fillSlots(): void {
    for (const record of this.records.values()) {
      if (this.running() >= SEARCH_SLOTS) return;
      if (!record.runningSince && !isComplete(record)) {
        record.runningSince = new Date();
        record.state = 'InProgress';
      }
    }
  }
}

export function isComplete(record: SearchRecord): boolean {
  return record.state.split(', ').includes('Completed');
}

function applyLimits(matched: SearchResponse[], responseLimit: number, fileLimit: number): { collected: SearchResponse[]; finalState: string } {
  const collected: SearchResponse[] = [];
  let files = 0;
  for (const response of matched) {
    collected.push(response);
    files += response.fileCount;
    if (collected.length >= responseLimit) return { collected, finalState: 'Completed, ResponseLimitReached' };
    if (files >= fileLimit) return { collected, finalState: 'Completed, FileLimitReached' };
  }
  return { collected, finalState: 'Completed, TimedOut' };
}

function readInteger(body: Record<string, unknown>, key: string, fallback: number): number | undefined {
  const value = body[key];
  if (value === undefined || value === null) return fallback;
  return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
}

/** .NET writes seven fractional digits; `withoutZone` mimics a DateTime read back from SQLite (no `Z`). */
export function dotNetTimestamp(date: Date, withoutZone = false): string {
  const iso = date.toISOString().replace(/\.(\d{3})Z$/, (_match, millis: string) => `.${millis}0000Z`);
  return withoutZone ? iso.slice(0, -1) : iso;
}
