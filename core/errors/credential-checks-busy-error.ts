import { AppError } from './app-error.js';

/**
 * 429: too many password or API-key checks are already waiting for the hashing slots. A 429 rather than a 503:
 * the service is fine, the clients send more guesses than it will hash, and a 5xx would be logged as a server
 * fault once per refused guess during a flood. The thrower's caller sets `Retry-After`.
 */
export class CredentialChecksBusyError extends AppError {
  readonly status = 429;
  readonly code = 'credential-checks-busy';
  readonly title = 'Too Many Requests';
  readonly retryAfterSeconds = 1;
  constructor() {
    super('too many password or API key checks are waiting; try again in a second');
  }
  override extensions() {
    return { retry_after_s: this.retryAfterSeconds };
  }
}
