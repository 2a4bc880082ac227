/**
 * Errors a plugin throws so the server can react sensibly. Each has a stable `code`.
 * Anything else a plugin throws is treated as an unexpected failure of that plugin.
 *
 * To recognise one of these errors, use the guards at the end of this file (`isHttpRequestError(err)`, …), not
 * `instanceof`: a third-party plugin installs its own copy of the sdk, so an error thrown by the server's copy
 * (the `http` client in the context throws the server's `HttpRequestError`) is an instance of another class
 * with the same name. The guards compare the stable `code`, which every copy shares.
 */

/**
 * The external service is busy or unreachable for now; the server retries later. `retryAfterMs` is a hint.
 *
 * @example
 * if (res.status === 429) throw new RetryLaterError('slskd is busy with another search', { retryAfterMs: 2000 });
 */
export class RetryLaterError extends Error {
  readonly code = 'retry-later';
  readonly retryAfterMs: number | undefined;
  constructor(message: string, options?: ErrorOptions & { retryAfterMs?: number }) {
    super(message, options);
    this.name = 'RetryLaterError';
    this.retryAfterMs = options?.retryAfterMs;
  }
}

/**
 * The external service refused the configured credentials (HTTP 401, Subsonic error 40, …). Retrying will
 * not help until the user fixes the configuration.
 *
 * @example
 * if (res.status === 401) throw new CredentialsError('slskd rejected the API key (401)');
 */
export class CredentialsError extends Error {
  readonly code = 'bad-credentials';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CredentialsError';
  }
}

/**
 * The thing asked for does not exist on the external service (a search id, a transfer, an album).
 *
 * @example
 * if (res.status === 404) throw new NotFoundError(`slskd has no transfer ${id}`);
 */
export class NotFoundError extends Error {
  readonly code = 'not-found';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'NotFoundError';
  }
}

/**
 * An outbound HTTP request failed before an answer arrived: refused, reset, timed out, or a refused target address.
 * `reason` tells which.
 *
 * @example
 * try { await http.request({ url }) } catch (err) { if (isHttpRequestError(err) && err.reason === 'timeout') … }
 */
export class HttpRequestError extends Error {
  readonly code = 'http-request-failed';
  constructor(
    message: string,
    readonly reason: 'timeout' | 'network' | 'refused-address' | 'response-too-large' | 'aborted',
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'HttpRequestError';
  }
}

/** The `code`s of the errors above, the part of them every copy of the sdk agrees on. */
function hasCode(err: unknown, code: string): err is Error & { code: string } {
  return err instanceof Error && 'code' in err && err.code === code;
}

/**
 * Whether `err` is a {@link RetryLaterError} from any copy of the sdk (compared by `code: 'retry-later'`).
 *
 * @example
 * catch (err) { if (isRetryLaterError(err)) log.info({ retry_after_ms: err.retryAfterMs }, 'busy, later'); else throw err; }
 */
export function isRetryLaterError(err: unknown): err is RetryLaterError {
  return hasCode(err, 'retry-later');
}

/**
 * Whether `err` is a {@link CredentialsError} from any copy of the sdk (compared by `code: 'bad-credentials'`).
 *
 * @example
 * if (isCredentialsError(err)) log.error('the API key was refused: fix it in config.yaml');
 */
export function isCredentialsError(err: unknown): err is CredentialsError {
  return hasCode(err, 'bad-credentials');
}

/**
 * Whether `err` is a {@link NotFoundError} from any copy of the sdk (compared by `code: 'not-found'`).
 *
 * @example
 * const album = await lookup(id).catch((err: unknown) => { if (isNotFoundError(err)) return undefined; throw err; });
 */
export function isNotFoundError(err: unknown): err is NotFoundError {
  return hasCode(err, 'not-found');
}

/**
 * Whether `err` is an {@link HttpRequestError} from any copy of the sdk (compared by `code: 'http-request-failed'`),
 * such as the ones `context.http` throws.
 *
 * @example
 * catch (err) { if (isHttpRequestError(err) && err.reason !== 'aborted') throw new RetryLaterError('unreachable', { cause: err }); throw err; }
 */
export function isHttpRequestError(err: unknown): err is HttpRequestError {
  return hasCode(err, 'http-request-failed') && 'reason' in err && typeof err.reason === 'string';
}
