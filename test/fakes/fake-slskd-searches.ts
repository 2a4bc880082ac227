import { randomUUID } from 'node:crypto';
import { isJsonObject } from './is-json-object.js';
import { matchCatalogue, type FakeSlskdPeer, type SearchResponse } from './fake-slskd-catalogue.js';

/** When a search finishes: on the n-th `GET /searches/{id}`, or once this many milliseconds have passed. */
export type SearchCompletion = { readonly afterPolls: number } | { readonly afterMs: number };

export interface SearchRecord {
  readonly id: string;
  readonly searchText: string;
  readonly token: number;
  readonly startedAt: Date;
  /** Collected when the search starts; revealed only once it completes, as slskd writes them at the end. */
  readonly collected: readonly SearchResponse[];
  readonly finalState: string;
  state: string;
  endedAt?: Date;
  polls: number;
}

export type SearchStart = { readonly ok: true; readonly record: SearchRecord } | { readonly ok: false; readonly message: string };

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
  ) {}

  start(body: unknown): SearchStart {
    if (!isJsonObject(body)) return { ok: false, message: 'A search request body is required' };
    const searchText = body['searchText'];
    if (typeof searchText !== 'string' || searchText.trim() === '') return { ok: false, message: 'SearchText must not be blank' };
    const id = typeof body['id'] === 'string' ? body['id'].toLowerCase() : randomUUID();
    if (this.records.has(id)) return { ok: false, message: `A search with ID ${id} already exists` };
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
    const record: SearchRecord = { id, searchText, token, startedAt: new Date(), collected, finalState, state: 'InProgress', polls: 0 };
    this.records.set(id, record);
    return { ok: true, record };
  }

  /** Looks a search up; `poll` counts the read towards completion (GET /searches/{id} does). */
  find(id: string, poll = false): SearchRecord | undefined {
    const record = this.records.get(id.toLowerCase());
    if (!record) return undefined;
    if (poll) record.polls++;
    if (!isComplete(record) && this.progress(record) >= 1) this.finish(record, record.finalState);
    return record;
  }

  all(): SearchRecord[] {
    return [...this.records.keys()].flatMap((id) => this.find(id) ?? []);
  }

  /** PUT /searches/{id}: stop a running search; what was collected so far is kept. */
  cancel(id: string): boolean {
    const record = this.find(id);
    if (!record) return false;
    if (!isComplete(record)) this.finish(record, 'Completed, Cancelled');
    return true;
  }

  delete(id: string): boolean {
    return this.records.delete(id.toLowerCase());
  }

  /** The search record as slskd serialises it. `fresh` = the in-memory copy POST returns (timestamps keep their `Z`). */
  toJson(record: SearchRecord, options: { includeResponses: boolean; fresh?: boolean }): Record<string, unknown> {
    const complete = isComplete(record);
    const visible = complete ? record.collected : [];
    const share = complete ? 1 : Math.min(1, this.progress(record));
    const fileTotal = record.collected.reduce((sum, response) => sum + response.fileCount, 0);
    const stamp = (date: Date): string => dotNetTimestamp(date, !options.fresh && this.sqliteTimestamps);
    return {
      id: record.id,
      searchText: record.searchText,
      token: record.token,
      state: record.state,
      isComplete: complete,
      startedAt: stamp(record.startedAt),
      endedAt: record.endedAt ? stamp(record.endedAt) : undefined,
      responseCount: Math.floor(record.collected.length * share),
      fileCount: Math.floor(fileTotal * share),
      lockedFileCount: 0,
      responses: options.includeResponses ? visible : [],
    };
  }

  /** The responses slskd would return for the record right now: none until the search has completed. */
  visibleResponses(record: SearchRecord): readonly SearchResponse[] {
    return isComplete(record) ? record.collected : [];
  }

  private progress(record: SearchRecord): number {
    if ('afterPolls' in this.completion) return this.completion.afterPolls <= 0 ? 1 : record.polls / this.completion.afterPolls;
    return this.completion.afterMs <= 0 ? 1 : (Date.now() - record.startedAt.getTime()) / this.completion.afterMs;
  }

  private finish(record: SearchRecord, state: string): void {
    record.state = state;
    record.endedAt = new Date();
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
