import { AppError } from './app-error.js';

/**
 * 503: too many password or API-key checks are already waiting for the hashing slots. The thrower's caller
 * sets `Retry-After`; the request may simply be repeated a moment later.
 */
export class CredentialChecksBusyError extends AppError {
  readonly status = 503;
  readonly code = 'credential-checks-busy';
  readonly title = 'Service Unavailable';
  readonly retryAfterSeconds = 1;
  constructor() {
    super('too many credential checks are waiting; try again in a second');
  }
}
