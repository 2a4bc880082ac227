import Koa from 'koa';
import type { Logger } from '@crateflow/sdk';
import type { AllowedHosts } from './auth/allowed-hosts.js';
import { refuseCrossSiteWrites } from './auth/cross-site-guard.js';
import { refuseForeignHosts } from './auth/host-check.js';
import { apiNotFound, createApiRouter, type ApiRouterOptions } from './http/api-router.js';
import { drainUnreadBody } from './http/drain-unread-body.js';
import { problemDetails } from './http/problem-middleware.js';
import { requestContext } from './http/request-context.js';
import type { RouteSpec } from './http/route.js';
import { uiAuthRedirect } from './http/ui-auth-redirect.js';

export interface AppParts extends ApiRouterOptions {
  log: Logger;
  routes: readonly RouteSpec[];
  health: Koa.Middleware;
  /** The `Host` names the service answers to (DNS-rebinding protection). */
  allowedHosts: AllowedHosts;
  /** Serves the web UI (and the login page) for paths outside /api and /health. */
  ui?: Koa.Middleware;
  /** `/decide/{token}`: decision links, which need no sign-in (the token is the credential). */
  decisionLinks?: Koa.Middleware;
}

const CLIENT_GONE = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE']);

/** The Koa app and its middleware order, nothing else. */
export function createApp(parts: AppParts): Koa {
  // proxy: false — X-Forwarded-* headers are never believed by Koa itself; trust decisions are the auth layer's.
  const app = new Koa({ proxy: false });
  app.silent = true;
  app.on('error', (err: unknown) => {
    // A client that goes away mid-answer (closing the event stream, most often) ends a streamed body early or
    // resets the socket under it: routine, not a server fault, so it must not page anyone.
    if (err instanceof Error && 'code' in err && typeof err.code === 'string' && CLIENT_GONE.has(err.code)) {
      parts.log.debug({ err }, 'client closed the connection before the answer was complete');
      return;
    }
    parts.log.error({ err }, 'unexpected error while handling a request');
  });

  const router = createApiRouter(parts.routes, parts);
  app.use(drainUnreadBody());
  app.use(problemDetails());
  app.use(requestContext(parts.log));
  app.use(refuseForeignHosts(parts.allowedHosts));
  app.use(async (ctx, next) => (ctx.path === '/health' && (ctx.method === 'GET' || ctx.method === 'HEAD') ? parts.health(ctx, next) : next()));
  // Ahead of the cross-site guard and of sign-in: a decision link's token is its own credential, and a page of
  // another site cannot know one to post to.
  if (parts.decisionLinks) app.use(parts.decisionLinks);
  app.use(refuseCrossSiteWrites(parts.authenticator));
  app.use(apiNotFound);
  app.use(router.routes());
  app.use(router.allowedMethods());
  app.use(uiAuthRedirect(parts.authenticator));
  if (parts.ui) app.use(parts.ui);
  return app;
}
