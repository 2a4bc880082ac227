import { AppError } from './app-error.js';

/**
 * 429: `server.max_event_streams` streams are already open. A 4xx on purpose: the limit doing its job is not
 * a server fault, and a 5xx would be logged as one on every refused reconnect. The thrower sets `Retry-After`.
 */
export class TooManyEventStreamsError extends AppError {
  readonly status = 429;
  readonly code = 'too-many-event-streams';
  readonly title = 'Too Many Requests';
  constructor(
    readonly open: number,
    readonly retryAfterSeconds: number,
  ) {
    super(`${open} event streams are open, the most server.max_event_streams allows; try again in ${retryAfterSeconds} s`);
  }
  override extensions() {
    return { retry_after_s: this.retryAfterSeconds };
  }
}
