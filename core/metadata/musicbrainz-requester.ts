import { HttpRequestError, isRecord, RetryLaterError, type Clock, type HttpClient, type HttpResponse, type JsonRecord, type Logger } from '@crateflow/sdk';
import type { DiskCache } from './disk-cache.js';
import { MusicBrainzCacheTtls, type MusicBrainzCacheKind } from './musicbrainz-cache-ttls.js';
import { MusicBrainzError } from './musicbrainz-error.js';
import { MusicBrainzResponseLimits } from './musicbrainz-response-limits.js';
import type { RequestPacer } from './request-pacer.js';
import { retryAfterMs } from './retry-after.js';

export interface MusicBrainzRequesterOptions {
  readonly http: HttpClient;
  readonly clock: Clock;
  readonly log: Logger;
  readonly cache: DiskCache;
  readonly pacer: RequestPacer;
  /** Origin, e.g. `https://musicbrainz.org`. */
  readonly baseUrl: string;
  readonly userAgent: string;
  /** Tries per request, the first included (default 4). */
  readonly maxAttempts?: number;
  /** Per attempt; MusicBrainz sometimes delays over-rate requests by 12 s instead of refusing them (default 20 s). */
  readonly timeoutMs?: number;
}

type Transient = { readonly waitMs: number; readonly reason: string; readonly cause?: unknown };
/** A lookup of a merged MBID: MusicBrainz answers 301 with the `Location` of the entity that absorbed it. */
type Moved = { readonly movedTo: URL };
/** What is cached: the body of a 200, or the fact that the MBID is unknown. */
type Stored = { readonly found: true; readonly body: JsonRecord } | { readonly found: false };

const MAX_BACKOFF_MS = 60_000;
const MAX_REDIRECTS = 3;
const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * Gets one `/ws/2` document politely: from the disk cache when fresh, else through the shared pacer, retrying busy
 * answers (503, 502 HTML outages, timeouts) with backoff that honours `Retry-After` and holds back every other
 * caller meanwhile (shared/reference/musicbrainz-api.md §2). Identical requests in flight share one fetch.
 */
export class MusicBrainzRequester {
  private readonly inFlight = new Map<string, Promise<Stored>>();

  constructor(private readonly options: MusicBrainzRequesterOptions) {}

  /** The JSON document, or undefined when MusicBrainz answers 404. */
  async get(kind: MusicBrainzCacheKind, path: string, params: Record<string, string>): Promise<JsonRecord | undefined> {
    const url = new URL(`/ws/2/${path}`, this.options.baseUrl);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    // §1: `fmt=json` and `Accept` both, because an Accept-only client was once served cached XML.
    url.searchParams.set('fmt', 'json');
    const key = url.pathname + url.search;
    const cached = await this.options.cache.get(key);
    const stored = isStored(cached) ? cached : await this.shared(key, kind, url);
    return stored.found ? stored.body : undefined;
  }

  private shared(key: string, kind: MusicBrainzCacheKind, url: URL): Promise<Stored> {
    const running = this.inFlight.get(key);
    if (running) return running;
    const fetching = this.fetch(url, MusicBrainzResponseLimits[kind]).then(async (stored) => {
      await this.options.cache.set(key, stored, stored.found ? MusicBrainzCacheTtls[kind] : MusicBrainzCacheTtls.notFound).catch((err: unknown) => {
        // Safe to continue: the answer is in hand; a full or read-only disk only costs a request next time.
        this.options.log.warn({ err, key }, 'could not store a MusicBrainz answer in the cache');
      });
      return stored;
    }).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, fetching);
    return fetching;
  }

  /**
   * Follows redirects (MusicBrainz, musicbrainz-server `Controller/Role/Load.pm`: a merged MBID answers 301 to the
   * entity it was merged into) within `/ws/2` of the same origin; each hop is paced like any request. The answer is
   * cached under the MBID asked for, so the next lookup of the old MBID costs nothing.
   */
  private async fetch(url: URL, maxBytes: number): Promise<Stored> {
    let current = url;
    for (let redirects = 0; ; redirects++) {
      const outcome = await this.fetchRetrying(current, maxBytes);
      if (!('movedTo' in outcome)) return outcome;
      if (redirects >= MAX_REDIRECTS) throw new MusicBrainzError(`MusicBrainz redirected ${url.pathname} more than ${MAX_REDIRECTS} times`, 301);
      current = outcome.movedTo;
    }
  }

  private async fetchRetrying(url: URL, maxBytes: number): Promise<Stored | Moved> {
    const maxAttempts = this.options.maxAttempts ?? 4;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(url, attempt, maxBytes);
      if (!('waitMs' in outcome)) return outcome;
      // A wait longer than any backoff of ours (a Retry-After up to the honoured cap) still holds back every caller,
      // as the server asked, but nobody sits through it holding a request: this one is answered "later" now.
      const tooLong = outcome.waitMs > MAX_BACKOFF_MS;
      if (tooLong) this.options.pacer.holdUntil(this.options.clock.now() + outcome.waitMs);
      if (attempt >= maxAttempts || tooLong) {
        throw new RetryLaterError(`MusicBrainz did not answer ${url.pathname} after ${attempt} attempts: ${outcome.reason}`, { retryAfterMs: outcome.waitMs, cause: outcome.cause });
      }
      this.options.log.debug({ path: url.pathname, attempt, waitMs: outcome.waitMs, reason: outcome.reason }, 'MusicBrainz is busy; backing off');
      this.options.pacer.holdUntil(this.options.clock.now() + outcome.waitMs);
    }
  }

  private async attempt(url: URL, attempt: number, maxBytes: number): Promise<Stored | Transient | Moved> {
    // Doubling from 1 s: MusicBrainz asks for at least 1 s, and global shedding says `Retry-After: 0` (§2, §7).
    const backoff = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (attempt - 1));
    let res;
    try {
      res = await this.options.pacer.run(() => this.options.http.request({
        url, headers: { 'user-agent': this.options.userAgent, accept: 'application/json' }, timeoutMs: this.options.timeoutMs ?? 20_000, maxResponseBytes: maxBytes,
      }));
    } catch (err: unknown) {
      // Nothing listens there, or the name does not resolve: backing off within this request only makes a person
      // wait (1 + 2 + 4 s of "Loading tracks…") for the same answer. Said at once; the caller may try again later.
      if (err instanceof HttpRequestError && err.reason === 'network' && isUnreachable(err)) {
        throw new RetryLaterError(`MusicBrainz cannot be reached: ${err.message}`, { retryAfterMs: UNREACHABLE_RETRY_MS, cause: err });
      }
      if (err instanceof HttpRequestError && (err.reason === 'timeout' || err.reason === 'network')) return { waitMs: backoff, reason: err.message, cause: err };
      throw err;
    }
    if (res.status === 404) return { found: false };
    if (REDIRECTS.has(res.status)) return { movedTo: redirectTarget(url, res.headers['location'], res.status) };
    if (res.status === 200) {
      let body: unknown;
      try {
        body = res.json();
      } catch (err: unknown) {
        // An outage page served with 200 would be a busy server, not a wrong answer.
        return { waitMs: backoff, reason: 'answer was not JSON', cause: err };
      }
      if (!isRecord(body)) throw new MusicBrainzError(`MusicBrainz answered ${url.pathname} with JSON that is not an object`, 200);
      return { found: true, body };
    }
    if (res.status === 503 || res.status === 502 || res.status === 504 || res.status === 500 || res.status === 429) {
      const asked = retryAfterMs(res.headers['retry-after'], this.options.clock.now()) ?? 0;
      return { waitMs: Math.max(asked, backoff), reason: `status ${res.status} ${errorText(res)}`.trim() };
    }
    throw new MusicBrainzError(`MusicBrainz refused ${url.pathname}${url.search} with ${res.status}: ${errorText(res)}`, res.status);
  }
}

/** Where a redirect leads, if it stays within `/ws/2` of the same origin (anywhere else is refused, not followed). */
function redirectTarget(from: URL, location: string | undefined, status: number): URL {
  let target: URL | undefined;
  try {
    target = location ? new URL(location, from) : undefined;
  } catch (err: unknown) {
    if (!(err instanceof TypeError)) throw err; // an unparsable Location: refused below
  }
  if (!target || target.origin !== from.origin || !target.pathname.startsWith('/ws/2/')) {
    throw new MusicBrainzError(`MusicBrainz redirected ${from.pathname} to ${location ?? 'nowhere'} (${status}); only /ws/2 on the same host is followed`, status);
  }
  target.searchParams.set('fmt', 'json');
  return target;
}

/**
 * The `error` member of a MusicBrainz error body, or the start of whatever else came (HTML outages). Read with
 * `json()`, which refuses a body nested too deep before parsing it, as for every other answer (issue #27).
 */
function errorText(res: HttpResponse): string {
  try {
    const body: unknown = res.json();
    if (isRecord(body) && typeof body['error'] === 'string') return body['error'];
  } catch (err: unknown) {
    // Not JSON (an HTML outage page), or nested too deep: its first characters say enough for a log line.
    if (!(err instanceof SyntaxError)) throw err;
  }
  return res.text().slice(0, 120);
}

function isStored(value: unknown): value is Stored {
  return isRecord(value) && (value['found'] === false || (value['found'] === true && isRecord(value['body'])));
}

// Errors that say no server is there (connection refused, no route, a name that does not resolve), as opposed to
// one that answered badly or dropped the connection: the first kind does not get better within seconds.
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
// How long a caller is told to wait before asking an unreachable MusicBrainz again.
const UNREACHABLE_RETRY_MS = 30_000;

function isUnreachable(err: Error): boolean {
  let current: unknown = err;
  for (let depth = 0; depth < 6 && current instanceof Error; depth++) {
    if ('code' in current && typeof current.code === 'string' && UNREACHABLE_CODES.has(current.code)) return true;
    // AggregateError (every address of a name refused) carries the codes in `errors`.
    if (current instanceof AggregateError && current.errors.some((inner) => inner instanceof Error && 'code' in inner && typeof inner.code === 'string' && UNREACHABLE_CODES.has(inner.code))) return true;
    current = current.cause;
  }
  return false;
}
