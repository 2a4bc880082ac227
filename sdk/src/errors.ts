/**
 * Errors a plugin throws so the server can react sensibly. Each has a stable `code`.
 * Anything else a plugin throws is treated as an unexpected failure of that plugin.
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
 * try { await http.request({ url }) } catch (err) { if (err instanceof HttpRequestError && err.reason === 'timeout') … }
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
