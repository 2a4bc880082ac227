import { AppError } from './app-error.js';

/** 429: a requester has as many requests waiting for an admin as `requests.max_waiting` allows. */
export class TooManyWaitingRequestsError extends AppError {
  readonly status = 429;
  readonly code = 'too-many-waiting-requests';
  readonly title = 'Too Many Requests';
  constructor(readonly maxWaiting: number) {
    super(`you have ${maxWaiting} requests waiting for an admin, as many as this server allows; more can be made once some are decided (or cancel one)`);
  }
  override extensions() {
    return { max_waiting: this.maxWaiting };
  }
}
