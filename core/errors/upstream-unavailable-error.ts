import { AppError } from './app-error.js';

/**
 * 503: a public metadata service (MusicBrainz, the Cover Art Archive) could not be reached or kept refusing, or
 * too many fetches are waiting for it. Nothing was stored; the client may try again after `retryAfterS`. The
 * detail names the service only; the cause (addresses, status lines) goes to the log.
 */
export class UpstreamUnavailableError extends AppError {
  readonly status = 503;
  readonly code = 'upstream-unavailable';
  readonly title = 'Upstream Unavailable';

  constructor(readonly service: 'MusicBrainz' | 'Cover Art Archive', readonly retryAfterS: number, options?: ErrorOptions & { busy?: boolean }) {
    super(
      options?.busy
        ? `too many requests are waiting for the ${service}; try again in a moment`
        : `${service} cannot be reached right now; nothing was changed, try again in a while`,
      options,
    );
  }

  override get clientFault(): boolean {
    return true; // another service's outage: the client can act on it (retry later), and it is logged as a warning where it happens
  }

  override extensions(): Record<string, unknown> {
    return { service: this.service, retry_after_s: this.retryAfterS };
  }
}
