import { CredentialsError, isHttpRequestError, RetryLaterError, type HttpClient, type HttpResponse } from '@crateflow/sdk';
import { arrayField, booleanField, isRecord, numberField, stringField, type JsonRecord } from '@crateflow/sdk';
import { toSearchResponse, toTransfer, type SlskdSearchResponse, type SlskdTransfer } from './slskd-records.js';

export type { SlskdFile, SlskdSearchResponse, SlskdTransfer } from './slskd-records.js';

export interface SlskdSearchInfo {
  state: string;
  isComplete: boolean;
  responseCount: number;
  /** Set by slskd only once the responses are saved too (see the completion race in slskd-api.md §4). */
  endedAt?: string;
}

/** The responses of a search, or how many bytes they would have taken beyond what the plugin reads. */
export type SearchResponses = { ok: true; responses: SlskdSearchResponse[] } | { ok: false; tooLargeBytes: number };

export interface SearchRequest {
  id: string;
  searchText: string;
  searchTimeout: number;
  responseLimit: number;
  fileLimit: number;
}

export type EnqueueOutcome = { ok: true; failedCount: number } | { ok: false; reason: string };

/** Bytes of response JSON allowed per file of `file_limit`: slskd's file objects are ~200 bytes (slskd-api.md §4), so 1 KiB leaves room for long paths. */
const BYTES_PER_FILE = 1024;
/**
 * Reading tens of MB of responses from a busy slskd can take longer than the client's default deadline; it stays
 * under the 60 s the server allows one status() call, so a slow read fails as a timeout, not as a cut-off call.
 */
const RESPONSES_TIMEOUT_MS = 50_000;

/**
 * slskd's `/api/v0` as the download client uses it (shared/reference/slskd-api.md). Failures are turned into
 * the sdk's errors here, once: unreachable, 429 and 409 → RetryLaterError (the core keeps the download and polls
 * again); 401/403 → CredentialsError.
 */
export class SlskdApi {
  constructor(
    private readonly http: HttpClient,
    /** `url` + `url_base`, without a trailing slash. */
    readonly base: string,
    private readonly apiKey: string,
    private readonly signal: AbortSignal,
  ) {}

  /** The Soulseek connection state, from `GET /application`. */
  async application(): Promise<{ connected: boolean; loggedIn: boolean; state: string; version: string }> {
    const body = await this.json(await this.send('GET', 'application'), 'GET application');
    const server = isRecord(body['server']) ? body['server'] : {};
    const version = isRecord(body['version']) ? (stringField(body['version'], 'current') ?? '') : '';
    return {
      connected: booleanField(server, 'isConnected') ?? false,
      loggedIn: booleanField(server, 'isLoggedIn') ?? false,
      state: stringField(server, 'state') ?? 'unknown',
      version,
    };
  }

  /** Starts a search under a caller-chosen id. `exists` when slskd already has a search with that id. */
  async startSearch(request: SearchRequest): Promise<'started' | 'exists'> {
    const res = await this.send('POST', 'searches', { ...request, filterResponses: true });
    if (res.status === 200 || res.status === 201) return 'started';
    const text = errorText(res);
    // slskd answers a duplicate id with 500 (a database key error); older builds said "already exists" with 400.
    if ((res.status === 400 || res.status === 500) && /already exists|UNIQUE constraint/i.test(text)) return 'exists';
    if (res.status === 409) throw new RetryLaterError(`slskd cannot search right now (409): ${text}`, { retryAfterMs: 30_000 });
    throw this.unexpected(res, 'POST searches');
  }

  /** The search record without responses; undefined when slskd does not know the id (404). */
  async search(id: string): Promise<SlskdSearchInfo | undefined> {
    const res = await this.send('GET', `searches/${encodeURIComponent(id)}`);
    if (res.status === 404) return undefined;
    const body = await this.json(res, 'GET searches/{id}');
    const state = stringField(body, 'state') ?? '';
    return {
      state,
      // isComplete is computed from the Completed flag; read either in case one is missing.
      isComplete: booleanField(body, 'isComplete') ?? state.split(', ').includes('Completed'),
      responseCount: numberField(body, 'responseCount') ?? 0,
      endedAt: stringField(body, 'endedAt'),
    };
  }

  /** Stops a running search; its responses become available once it is `Completed, Cancelled`. */
  async stopSearch(id: string): Promise<void> {
    const res = await this.send('PUT', `searches/${encodeURIComponent(id)}`);
    if (res.status !== 200 && res.status !== 204 && res.status !== 404) throw this.unexpected(res, 'PUT searches/{id}');
  }

  async deleteSearch(id: string): Promise<void> {
    const res = await this.send('DELETE', `searches/${encodeURIComponent(id)}`);
    if (res.status !== 204 && res.status !== 200 && res.status !== 404) throw this.unexpected(res, 'DELETE searches/{id}');
  }

  /**
   * The responses of a completed search (slskd only fills them in once the search has finished). The byte cap
   * grows with `fileLimit`: a "Greatest Hits" search near 50,000 files is ~10 MB, past the http client's default
   * 8 MiB, and a cut-off body must not read as "slskd unreachable" (which the core retries for ever). A set
   * bigger still comes back as `tooLargeBytes` for the caller to give up on that search.
   */
  async searchResponses(id: string, fileLimit: number): Promise<SearchResponses> {
    const maxResponseBytes = 1_048_576 + fileLimit * BYTES_PER_FILE;
    let res: HttpResponse;
    try {
      res = await this.send('GET', `searches/${encodeURIComponent(id)}/responses`, undefined, { maxResponseBytes, timeoutMs: RESPONSES_TIMEOUT_MS });
    } catch (err: unknown) {
      if (isHttpRequestError(err) && err.reason === 'response-too-large') return { ok: false, tooLargeBytes: maxResponseBytes };
      throw err;
    }
    if (res.status === 404) return { ok: true, responses: [] };
    if (res.status !== 200) throw this.unexpected(res, 'GET searches/{id}/responses');
    const body = parseJson(res, 'GET searches/{id}/responses');
    if (!Array.isArray(body)) throw new Error(`slskd answered GET searches/{id}/responses with something other than a list`);
    return { ok: true, responses: body.filter(isRecord).map(toSearchResponse) };
  }

  /**
   * Enqueues files from one user as an slskd 0.26+ batch whose files all land in `destination` (relative to
   * slskd's downloads directory). 201 all queued, 207 some failed; 200 means every file failed, and 404 that
   * the peer is offline: both answers about this peer, returned as `ok: false`.
   */
  async enqueueBatch(username: string, files: readonly { filename: string; size: number }[], destination: string): Promise<EnqueueOutcome> {
    const res = await this.send('POST', 'transfers/downloads/batches', { username, files, options: { destination } });
    if (res.status === 201 || res.status === 207 || res.status === 200) {
      const body = res.body.length > 0 ? parseJson(res, 'POST transfers/downloads/batches') : undefined;
      const failures = isRecord(body) ? arrayField(body, 'failures') : [];
      if (res.status === 200 || failures.length >= files.length) {
        const first = failures.find(isRecord);
        return { ok: false, reason: `every file was refused${first ? ` (${stringField(first, 'message') ?? 'no message'})` : ''}` };
      }
      return { ok: true, failedCount: failures.length };
    }
    if (res.status === 500 || res.status === 404 || res.status === 400) {
      return { ok: false, reason: `enqueue refused (${res.status}): ${errorText(res) || 'no message'}` };
    }
    if (res.status === 409) throw new RetryLaterError(`slskd cannot enqueue right now (409): ${errorText(res)}`, { retryAfterMs: 30_000 });
    throw this.unexpected(res, 'POST transfers/downloads/batches');
  }

  /**
   * Enqueues files from one user. A 500 (peer offline or unreachable), 404 or 400 is an answer about this peer,
   * not about slskd, so it comes back as `ok: false` for the caller to try the next candidate.
   */
  async enqueue(username: string, files: readonly { filename: string; size: number }[]): Promise<EnqueueOutcome> {
    const res = await this.send('POST', `transfers/downloads/${encodeURIComponent(username)}`, files);
    if (res.status === 200 || res.status === 201) {
      // 0.24+ answers { enqueued, failed }; 0.22–0.23 answer 201 with an empty body.
      const body = res.body.length > 0 ? parseJson(res, 'POST transfers/downloads/{user}') : undefined;
      return { ok: true, failedCount: isRecord(body) ? arrayField(body, 'failed').length : 0 };
    }
    if (res.status === 500 || res.status === 404 || res.status === 400) {
      return { ok: false, reason: `enqueue refused (${res.status}): ${errorText(res) || 'no message'}` };
    }
    if (res.status === 409) throw new RetryLaterError(`slskd cannot enqueue right now (409): ${errorText(res)}`, { retryAfterMs: 30_000 });
    throw this.unexpected(res, 'POST transfers/downloads/{user}');
  }

  /** Every visible download from `username`; empty when slskd has none (404). */
  async userTransfers(username: string): Promise<SlskdTransfer[]> {
    const res = await this.send('GET', `transfers/downloads/${encodeURIComponent(username)}`);
    if (res.status === 404) return [];
    const body = await this.json(res, 'GET transfers/downloads/{user}');
    return arrayField(body, 'directories')
      .filter(isRecord)
      .flatMap((directory) => arrayField(directory, 'files'))
      .filter(isRecord)
      .flatMap((record) => toTransfer(record) ?? []);
  }

  async cancelTransfer(username: string, id: string): Promise<void> {
    const res = await this.send('DELETE', `transfers/downloads/${encodeURIComponent(username)}/${encodeURIComponent(id)}?remove=true`);
    if (res.status !== 204 && res.status !== 200 && res.status !== 404) throw this.unexpected(res, 'DELETE transfers/downloads/{user}/{id}');
  }

  private async send(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    body?: unknown,
    limits: { maxResponseBytes?: number; timeoutMs?: number } = {},
  ): Promise<HttpResponse> {
    const url = `${this.base}/api/v0/${path}`;
    let res: HttpResponse;
    try {
      res = await this.http.request({
        url,
        method,
        headers: { 'x-api-key': this.apiKey, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: this.signal,
        ...limits,
      });
    } catch (err: unknown) {
      // A body over the cap is an answer (too big), not an unreachable slskd: the caller decides what it means.
      if (isHttpRequestError(err) && err.reason !== 'aborted' && err.reason !== 'response-too-large') {
        throw new RetryLaterError(`slskd at ${this.base} is unreachable: ${err.message}`, { cause: err, retryAfterMs: 10_000 });
      }
      throw err;
    }
    if (res.status === 401 || res.status === 403) {
      throw new CredentialsError(`slskd at ${this.base} rejected the API key (HTTP ${res.status}); check download_client.api_key`);
    }
    if (res.status === 429) throw new RetryLaterError(`slskd is busy with another request (429): ${errorText(res)}`, { retryAfterMs: 2_000 });
    if (res.status === 502 || res.status === 503 || res.status === 504) {
      throw new RetryLaterError(`slskd at ${this.base} is not available (HTTP ${res.status})`, { retryAfterMs: 10_000 });
    }
    return res;
  }

  private async json(res: HttpResponse, what: string): Promise<JsonRecord> {
    if (res.status !== 200) throw this.unexpected(res, what);
    const body = parseJson(res, what);
    if (!isRecord(body)) throw new Error(`slskd answered ${what} with something other than a JSON object`);
    return body;
  }

  private unexpected(res: HttpResponse, what: string): Error {
    const text = errorText(res);
    const message = `slskd answered ${what} with HTTP ${res.status}${text ? `: ${text}` : ''}`;
    // A 404 on an API path means the URL (or url_base) does not lead to slskd's API.
    if (res.status === 404) return new Error(`${message} — is ${this.base} the slskd URL (and url_base right)?`);
    return res.status >= 500 ? new RetryLaterError(message, { retryAfterMs: 10_000 }) : new Error(message);
  }
}

function parseJson(res: HttpResponse, what: string): unknown {
  try {
    return res.json();
  } catch (err: unknown) {
    throw new Error(`slskd answered ${what} with something other than JSON — is the URL right?`, { cause: err });
  }
}

/** slskd error bodies are short strings, sometimes quoted as a JSON string. */
function errorText(res: HttpResponse): string {
  const text = res.text().trim();
  if (text.startsWith('"')) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === 'string') return parsed;
    } catch (err: unknown) {
      // Not a JSON string after all: the raw text is the message.
      return text.slice(0, 300);
    }
  }
  return text.slice(0, 300);
}
