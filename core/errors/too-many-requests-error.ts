import { AppError } from './app-error.js';

/** 429: too many failed logins from one client address. The thrower also sets `Retry-After`. */
export class TooManyRequestsError extends AppError {
  readonly status = 429;
  readonly code = 'too-many-failed-logins';
  readonly title = 'Too Many Requests';
  constructor(readonly retryAfterSeconds: number) {
    super(`too many failed logins from this address; try again in ${retryAfterSeconds} s`);
  }
  override extensions() {
    return { retry_after_s: this.retryAfterSeconds };
  }
}
