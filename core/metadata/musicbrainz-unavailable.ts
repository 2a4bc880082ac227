import { isHttpRequestError, isRetryLaterError } from '@crateflow/sdk';
import { UpstreamUnavailableError } from '../errors/upstream-unavailable-error.js';
import { MusicBrainzError } from './musicbrainz-error.js';
import { MAX_HONOURED_RETRY_AFTER_MS } from './retry-after.js';

/** When MusicBrainz gave no hint: long enough for a restart or an outage page to pass, short enough to try again. */
const DEFAULT_RETRY_AFTER_S = 30;

/**
 * The 503 a request answers when MusicBrainz failed it: busy or unreachable after the client's retries
 * (`RetryLaterError`), or answering something no retry here can use: a redirect loop or one off `/ws/2`, a refusal,
 * a body past its size bound, JSON nested too deep (`MusicBrainzError`, `HttpRequestError`). None of these is the
 * client's fault or ours, and a 500 would say it is ours (issue #27). Undefined for any other error: a bug, a 500.
 * `Retry-After` is the wait MusicBrainz asked for, within the cap the client honours.
 */
export function musicBrainzUnavailable(err: unknown): UpstreamUnavailableError | undefined {
  if (isRetryLaterError(err)) {
    const asked = err.retryAfterMs === undefined ? DEFAULT_RETRY_AFTER_S * 1000 : Math.min(err.retryAfterMs, MAX_HONOURED_RETRY_AFTER_MS);
    return new UpstreamUnavailableError('MusicBrainz', Math.max(1, Math.ceil(asked / 1000)), { cause: err });
  }
  if (err instanceof MusicBrainzError || isHttpRequestError(err)) return new UpstreamUnavailableError('MusicBrainz', DEFAULT_RETRY_AFTER_S, { cause: err });
  return undefined;
}
