import { AppError } from './app-error.js';

/** 403: a state-changing request carried the session cookie but came from another site (CSRF protection). */
export class CrossSiteRequestError extends AppError {
  readonly status = 403;
  readonly code = 'cross-site-request';
  readonly title = 'Forbidden';
  constructor(origin: string | undefined) {
    super(
      origin
        ? `a request from ${origin} cannot use this site's session cookie; send it from this site or use an API key`
        : 'a request that changes something with the session cookie must carry an Origin or Referer header of this site',
    );
  }
}
