import { AppError } from './app-error.js';

/** One client asked for decision links more often than 30 times a minute (429, with Retry-After). */
export class DecisionLinksRateLimitedError extends AppError {
  readonly status = 429;
  readonly code = 'too-many-requests';
  readonly title = 'Too Many Requests';
  constructor(readonly retryAfterSeconds: number) {
    super(`too many requests to decision links from this address; try again in ${retryAfterSeconds} s`);
  }
  override extensions() {
    return { retry_after_s: this.retryAfterSeconds };
  }
}
