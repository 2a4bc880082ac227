import type { Context, Next } from 'koa';
import type { AuthRequest } from '@crateflow/sdk';
import { CrossSiteRequestError, type CrossSiteReason } from '../errors/cross-site-request-error.js';
import { ApiKeyVerifier } from './api-key-verifier.js';
import type { RequestAuthenticator } from './request-authenticator.js';
import { requestOrigin, SAFE_METHODS } from './same-origin.js';

/**
 * Why a state-changing request looks started by another site's page, or undefined when it does not:
 * the browser says so with `Sec-Fetch-Site` other than `same-origin` (or `none`, a user's own action), or
 * with an `Origin`/`Referer` that is not this site (`null` included). Scripts, curl and Node-RED send neither,
 * so they pass in every mode: a page cannot make a modern browser drop them. What an old browser's form could
 * still send without an Origin is a form body; routes with a body take only JSON, and routes without one
 * refuse a form content type (api-router's `refuseFormBody`).
 */
export function crossSiteReason(req: AuthRequest): CrossSiteReason | undefined {
  if (SAFE_METHODS.has(req.method)) return undefined;
  // A browser never attaches an API key by itself, and cannot add one to another site's request without a
  // CORS preflight, which this service never grants: a key proves the caller chose to send it.
  if (ApiKeyVerifier.presented(req.headers) !== undefined) return undefined;
  const fetchSite = req.headers['sec-fetch-site']?.trim().toLowerCase();
  if (fetchSite !== undefined && fetchSite !== 'same-origin' && fetchSite !== 'none') return { kind: 'fetch-site', value: fetchSite };
  const { origin, sameSite } = requestOrigin(req);
  if (origin !== undefined && !sameSite) return { kind: 'origin', origin };
  return undefined;
}

/** Refuses, in every auth mode and before any credential is checked, a state-changing request another site started. */
export function refuseCrossSiteWrites(authenticator: RequestAuthenticator) {
  return async function crossSiteGuard(ctx: Context, next: Next): Promise<void> {
    if (!SAFE_METHODS.has(ctx.method)) {
      const reason = crossSiteReason(authenticator.describe(ctx));
      if (reason) throw new CrossSiteRequestError(reason, authenticator.type);
    }
    await next();
  };
}
