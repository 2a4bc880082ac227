import { performance } from 'node:perf_hooks';
import { isHttpRequestError, type HttpClient } from '@crateflow/sdk';
import { redactUrl, scrubTargetUrl } from './redact-url.js';
import { parseRetryAfter, RETRY_AFTER_STATUSES } from './retry-after.js';
import { deliveryHeaders } from './sign-delivery.js';

/** Receivers answer webhooks with little or nothing; more than this is not read (and counts as a failure). */
export const MAX_RESPONSE_BYTES = 64 * 1024;
const EXCERPT_CHARS = 200;

/** Where and how one attempt goes. */
export interface AttemptTarget {
  url: string;
  secret: string | undefined;
  timeout_ms: number;
}

export interface AttemptInput {
  target: AttemptTarget;
  body: string;
  event: string;
  deliveryId: string;
  /** Epoch ms of the attempt, from the plugin's clock (feeds `webhook-timestamp`). */
  now: number;
  signal: AbortSignal;
}

/** How one attempt went. `aborted`: the server is shutting down, so the attempt does not count. */
export interface AttemptResult {
  ok: boolean;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  aborted: boolean;
  /** A 429 or 503 with a valid `Retry-After`: how long the receiver asked us to wait, in ms. */
  retry_after_ms?: number;
  /** The receiver answered `410 Gone`: the subscription is over, so this failure is final. */
  gone?: boolean;
}

/**
 * Sends one POST and judges it by the specification: a 2xx succeeds; a network error, a timeout, a redirect
 * (never followed; the HTTP client does not follow them) or any other status fails.
 */
export async function sendAttempt(http: HttpClient, input: AttemptInput): Promise<AttemptResult> {
  const headers = deliveryHeaders({
    body: input.body,
    event: input.event,
    deliveryId: input.deliveryId,
    secret: input.target.secret,
    timestampSeconds: Math.floor(input.now / 1000),
  });
  const started = performance.now();
  const elapsed = () => Math.max(0, Math.round(performance.now() - started));
  try {
    const res = await http.request({
      url: input.target.url,
      method: 'POST',
      headers,
      body: input.body,
      timeoutMs: input.target.timeout_ms,
      maxResponseBytes: MAX_RESPONSE_BYTES,
      signal: input.signal,
    });
    const duration_ms = elapsed();
    if (res.status >= 200 && res.status < 300) return { ok: true, status_code: res.status, error: null, duration_ms, aborted: false };
    const failed = { ok: false, status_code: res.status, duration_ms, aborted: false };
    if (res.status >= 300 && res.status < 400) {
      // The Location can carry a token as much as the target can; the log shows its host and a hint.
      const location = res.headers.location;
      const shown = location === undefined ? '(no location)' : URL.canParse(location, input.target.url) ? redactUrl(new URL(location, input.target.url).href) : '(an invalid location)';
      return { ...failed, error: `redirect ${res.status} to ${shown} not followed` };
    }
    if (res.status === 410) {
      return { ...failed, gone: true, error: `answered 410 Gone${excerpt(res.text())}: final, no retries; the webhook is flagged as gone` };
    }
    const retryAfter = RETRY_AFTER_STATUSES.has(res.status) ? parseRetryAfter(res.headers['retry-after'], input.now) : undefined;
    return { ...failed, error: `answered ${res.status}${excerpt(res.text())}`, ...(retryAfter === undefined ? {} : { retry_after_ms: retryAfter }) };
  } catch (err: unknown) {
    const duration_ms = elapsed();
    if (isHttpRequestError(err)) {
      return { ok: false, status_code: null, error: scrubTargetUrl(err.message, input.target.url), duration_ms, aborted: err.reason === 'aborted' };
    }
    // Anything else is a failure of this attempt (an invalid URL, a TLS problem surfaced oddly): record it and
    // let the retry budget decide, rather than failing the whole sender.
    return { ok: false, status_code: null, error: scrubTargetUrl(err instanceof Error ? err.message : String(err), input.target.url), duration_ms, aborted: false };
  }
}

function excerpt(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line === '') return '';
  return `: ${line.length > EXCERPT_CHARS ? `${line.slice(0, EXCERPT_CHARS)}…` : line}`;
}
