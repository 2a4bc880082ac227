import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from '@crateflow/sdk';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
const DECIDE_PREFIX = '/decide/';

/**
 * Gives every request an id (the caller's `X-Request-Id` when it is safe to echo, else a new one), a child
 * logger carrying it, and one access-log line when it ends. Probes of /health log at debug level only.
 * Headers are never logged: they carry credentials.
 */
export function requestContext(log: Logger) {
  return async function requestContextMiddleware(ctx: Context, next: Next): Promise<void> {
    const incoming = ctx.get('x-request-id');
    const requestId = SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    const started = performance.now();
    // Logged when the answer is complete (or the client has gone): only then is the status final. An error
    // thrown below this middleware gets its status from problemDetails(), which runs outside it; a line written
    // on the way out of next() logged the router's 404/501 for answers that went out as 400s or 405s.
    ctx.res.once('close', () => {
      const status = ctx.res.statusCode;
      const line = { req_id: requestId, method: ctx.method, path: loggedPath(ctx.path), status, ms: Math.round((performance.now() - started) * 10) / 10 };
      if (ctx.path === '/health') log.debug(line, 'request');
      // A 503 with Retry-After is a deliberate "later" (an upstream down or over its quota, load shed at a bound):
      // worth a warning, not an error, so an operator's error alerts stay about Crateflow's own failures.
      else if (status === 503 && ctx.res.getHeader('retry-after') !== undefined) log.warn(line, 'request');
      else if (status >= 500) log.error(line, 'request');
      else log.info(line, 'request');
    });
    await next();
  };
}

/** The path as logged: a decision link's token is a credential, so the log names the route, not the token. */
export function loggedPath(path: string): string {
  return path.startsWith(DECIDE_PREFIX) ? `${DECIDE_PREFIX}[token]` : path;
}
