import type { Clock } from './clock.js';
import { clockSleep } from './clock-sleep.js';
import { isHttpRequestError, NotFoundError, RetryLaterError } from './errors.js';
import type { HttpClient } from './http-client.js';
import { isRecord, stringField } from './json-fields.js';

export interface ListenBrainzApiOptions {
  readonly http: HttpClient;
  readonly clock: Clock;
  /** Origin, e.g. https://api.listenbrainz.org (paths start with /1). */
  readonly baseUrl: string;
  readonly token: string | undefined;
  readonly timeoutMs: number;
}

/**
 * A ListenBrainz API client for sources (recommendations, statistics, Labs), with the service's manners
 * (shared/reference/listenbrainz-api.md): a 204 has no body and means "nothing computed yet"; every answer carries
 * `X-RateLimit-*` headers (the Labs API, asked through `origin`, publishes none), and when a window is used up the next request waits for it to reset instead of
 * earning a 429; a 429 anyway (another client on the same address) is a RetryLaterError for the server to retry.
 *
 * @example
 * const lb = new ListenBrainzApi({ http, clock, baseUrl: config.listenbrainz_url, token: config.token, timeoutMs: 20_000 });
 * const body = await lb.get(`1/cf/recommendation/user/${encodeURIComponent(user)}/recording`, { count: '200' }, run.signal);
 */
export class ListenBrainzApi {
  private resumeAt = 0;

  constructor(private readonly options: ListenBrainzApiOptions) {}

  /** The JSON body of a 200 (Labs answers an array), or undefined for a 204. Unknown user: NotFoundError with the message. */
  async get(path: string, params: Record<string, string>, signal: AbortSignal, origin = this.options.baseUrl): Promise<unknown> {
    const { http, clock, token, timeoutMs } = this.options;
    await clockSleep(clock, this.resumeAt - clock.now(), signal);
    const url = new URL(path, origin.endsWith('/') ? origin : `${origin}/`);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    let res;
    try {
      res = await http.request({ url, headers: { accept: 'application/json', ...(token ? { authorization: `Token ${token}` } : {}) }, timeoutMs, signal });
    } catch (err: unknown) {
      if (isHttpRequestError(err) && err.reason !== 'aborted') throw new RetryLaterError(`ListenBrainz is unreachable: ${err.message}`, { cause: err });
      throw err;
    }
    const resetInMs = resetIn(res.headers);
    // §2: a fixed window; the last request it allows says so with `remaining: 0`, and the next one waits it out.
    if (res.headers['x-ratelimit-remaining'] === '0' && resetInMs !== undefined) this.resumeAt = clock.now() + resetInMs;
    if (res.status === 204) return undefined;
    if (res.status === 200) {
      return res.json();
    }
    const message = errorText(res.text()) ?? `status ${res.status}`;
    if (res.status === 429 || res.status >= 500) {
      throw new RetryLaterError(`ListenBrainz is busy (${res.status}): ${message}`, resetInMs === undefined ? {} : { retryAfterMs: resetInMs });
    }
    if (res.status === 404) throw new NotFoundError(message);
    throw new Error(`ListenBrainz refused ${url.pathname} (${res.status}): ${message}`);
  }
}

// The longest wait for a rate-limit window honoured: LB's windows are 10 s (§2), and a reset years away (a window
// misconfigured on the server, a header mangled on the way) would hold every request of the source until shutdown.
const MAX_RESET_WAIT_MS = 5 * 60_000;

/** §2: `X-RateLimit-Reset-In` is clock-skew safe, unlike the epoch `X-RateLimit-Reset`. At most 5 minutes. */
function resetIn(headers: Record<string, string>): number | undefined {
  const seconds = Number(headers['x-ratelimit-reset-in']);
  return headers['x-ratelimit-reset-in'] !== undefined && Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, MAX_RESET_WAIT_MS) : undefined;
}

/** §1: errors are `{"code", "error"}`; anything else (an edge's HTML page) is left out of the message. */
function errorText(text: string): string | undefined {
  try {
    const body: unknown = JSON.parse(text);
    return isRecord(body) ? stringField(body, 'error') : undefined;
  } catch (err: unknown) {
    // Safe to continue: a body that is not JSON only means the status alone describes the failure.
    if (err instanceof SyntaxError) return undefined;
    throw err;
  }
}
