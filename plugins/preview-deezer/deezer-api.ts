import { isHttpRequestError, isRecord, numberField, RetryLaterError, stringField, type HttpClient, type JsonRecord } from '@crateflow/sdk';

// Deezer allows 50 requests per 5 s per address and refused again a second later when over it; 2 s lets the window
// move on (shared/reference/deezer-api.md §1).
const QUOTA_WAIT_MS = 2000;
const BUSY_WAIT_MS = 5000;
const UNREACHABLE_WAIT_MS = 30_000;
const QUOTA_EXCEEDED = 4;
const SERVICE_BUSY = 700;
const NO_DATA = 800;

/**
 * GETs from the Deezer public API. Deezer answers application errors with HTTP 200 and an `error` object
 * (§2), so the body decides: the quota (code 4) and "service busy" (700) become a RetryLaterError, "no data" (800)
 * is an answer of its own (undefined), and the rest fail naming Deezer's message. Infrastructure failures (an
 * unreachable host, 502/503/504) are worth retrying later too.
 */
export class DeezerApi {
  constructor(
    private readonly http: HttpClient,
    private readonly base: string,
    private readonly timeoutMs: number,
  ) {}

  /** The JSON body, or undefined when Deezer has no data for the path (an unknown album id). */
  async get(path: string, params: Record<string, string>, signal: AbortSignal): Promise<JsonRecord | undefined> {
    const url = new URL(path, this.base);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    let status: number;
    let body: unknown;
    try {
      const res = await this.http.request({ url, headers: { accept: 'application/json' }, timeoutMs: this.timeoutMs, signal });
      status = res.status;
      if (status === 429 || status === 502 || status === 503 || status === 504) {
        throw new RetryLaterError(`Deezer answered HTTP ${status} for ${path}`, { retryAfterMs: BUSY_WAIT_MS });
      }
      if (status !== 200) throw new Error(`Deezer answered HTTP ${status} for ${path}`);
      body = res.json();
    } catch (err: unknown) {
      if (isHttpRequestError(err) && err.reason !== 'aborted') {
        throw new RetryLaterError(`Deezer cannot be reached (${err.reason})`, { cause: err, retryAfterMs: UNREACHABLE_WAIT_MS });
      }
      throw err;
    }
    if (!isRecord(body)) throw new Error(`Deezer answered ${path} with something other than a JSON object`);
    const error = body['error'];
    if (error === undefined) return body;
    const code = isRecord(error) ? numberField(error, 'code') : undefined;
    const message = (isRecord(error) && stringField(error, 'message')) || 'no message';
    // The quota is per public address, so other devices behind it can spend it however slowly we ask (§1).
    if (code === QUOTA_EXCEEDED) throw new RetryLaterError('Deezer refused: quota exceeded (50 requests per 5 s, shared by every device behind this public address)', { retryAfterMs: QUOTA_WAIT_MS });
    if (code === SERVICE_BUSY) throw new RetryLaterError(`Deezer is busy: ${message}`, { retryAfterMs: BUSY_WAIT_MS });
    if (code === NO_DATA) return undefined;
    throw new Error(`Deezer refused ${path}: ${message} (code ${code ?? 'none'})`);
  }
}
