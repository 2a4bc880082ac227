import type { IncomingMessage } from 'node:http';
import type { Context, Next } from 'koa';

/** How much of a request body nobody read is discarded before the answer goes out (a 413, a 401, …). */
export const MAX_DISCARDED_BODY_BYTES = 16 * 1024 * 1024;
/** How long a client may take to finish sending a body that is being discarded. */
export const MAX_DISCARD_MS = 10_000;

export interface DrainLimits {
  maxBytes: number;
  maxMs: number;
}

/**
 * The outermost middleware. An answer given before the request body was read (a 413 for a body over 1 MiB, a
 * 401 on a POST) would otherwise be followed by Node closing the socket while the client is still sending:
 * the client sees EPIPE or ECONNRESET instead of the problem, and a reset can even discard the answer already
 * in its receive buffer. So the rest of the body is read and thrown away first, up to a bound in bytes and
 * time; past the bound the answer says `Connection: close` and the connection ends (a client sending
 * gigabytes is not owed a graceful close).
 */
export function drainUnreadBody(limits: DrainLimits = { maxBytes: MAX_DISCARDED_BODY_BYTES, maxMs: MAX_DISCARD_MS }) {
  return async function drainUnreadBodyMiddleware(ctx: Context, next: Next): Promise<void> {
    await next();
    const req = ctx.req;
    if (req.complete || !carriesBody(req) || req.destroyed) return;
    const drained = await discardRest(req, limits);
    if (!drained) ctx.set('Connection', 'close');
  };
}

/** Whether a request carries body bytes: a length above 0, or a chunked body. */
export function carriesBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/** Reads and drops the rest of the body. True when it ended within the limits. */
function discardRest(req: IncomingMessage, limits: DrainLimits): Promise<boolean> {
  const declared = Number(req.headers['content-length'] ?? 0);
  // A declared length over the bound will not fit: waiting for it only ties the connection up.
  if (declared > limits.maxBytes) return Promise.resolve(false);
  return new Promise((resolve) => {
    let seen = 0;
    const settle = (drained: boolean): void => {
      clearTimeout(timer);
      req.off('data', count);
      req.off('end', ended);
      req.off('close', gone);
      if (!drained) req.pause();
      resolve(drained);
    };
    const count = (chunk: Buffer): void => {
      seen += chunk.length;
      if (seen > limits.maxBytes) settle(false);
    };
    const ended = (): void => settle(true);
    const gone = (): void => settle(req.complete);
    const timer = setTimeout(() => settle(false), limits.maxMs);
    req.on('data', count);
    req.once('end', ended);
    req.once('close', gone);
    req.resume();
  });
}
