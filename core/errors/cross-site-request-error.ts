import { AppError } from './app-error.js';

/** Why a state-changing request was taken for one that another site started. */
export type CrossSiteReason =
  | { kind: 'origin'; origin: string }
  | { kind: 'fetch-site'; value: string }
  | { kind: 'session-without-origin' };

/**
 * 403: a state-changing request that another site's page started (CSRF protection). The wording follows the
 * auth mode, because what the browser would lend the other site differs: the session cookie (basic), the
 * forward-auth proxy's sign-in (proxy), or, with authentication disabled, simply its place on this network.
 */
export class CrossSiteRequestError extends AppError {
  readonly status = 403;
  readonly code = 'cross-site-request';
  readonly title = 'Forbidden';
  private readonly field: string;

  constructor(readonly reason: CrossSiteReason, authType: string) {
    super(describe(reason, authType));
    this.field = reason.kind === 'fetch-site' ? 'headers.sec-fetch-site' : 'headers.origin';
  }

  override extensions() {
    return { errors: [{ path: this.field, message: fieldMessage(this.reason) }] };
  }
}

function describe(reason: CrossSiteReason, authType: string): string {
  const lend = authType === 'basic' ? "use this site's session cookie" : authType === 'proxy' ? 'act with the sign-in of your forward-auth proxy' : 'change anything here';
  const remedy = "send it from this site's own pages, or from a script that sends no Origin header (with an API key, in any mode)";
  switch (reason.kind) {
    case 'origin':
      return `a request from ${reason.origin.slice(0, 200)} cannot ${lend}; ${remedy}`;
    case 'fetch-site':
      return `a request that the browser marks Sec-Fetch-Site: ${reason.value.slice(0, 40)} cannot ${lend}; ${remedy}`;
    case 'session-without-origin':
      return "a request that changes something with the session cookie must carry an Origin or Referer header of this site";
  }
}

function fieldMessage(reason: CrossSiteReason): string {
  switch (reason.kind) {
    case 'origin':
    case 'session-without-origin':
      return "must be this site's origin";
    case 'fetch-site':
      return 'must be same-origin';
  }
}
