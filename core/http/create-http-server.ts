import { createServer, type RequestListener, type Server } from 'node:http';
import type { Logger } from '@crateflow/sdk';

/** The `server.*` limits that bound what clients can hold on to. */
export interface ServerLimits {
  max_connections: number;
  request_timeout_ms: number;
}

// Node's own default for the headers alone; a shorter request timeout lowers it too (Node requires
// headersTimeout <= requestTimeout).
const HEADERS_TIMEOUT_MS = 60_000;
// How often Node checks connections against the timeouts. Its default (30 s) would let a 2 s limit run to 32 s.
const MAX_CHECK_INTERVAL_MS = 1000;
const DROP_WARNING_INTERVAL_MS = 60_000;
// How long an idle keep-alive connection is kept. Node's 5 s is shorter than what clients and proxies reuse a
// connection after (nginx keeps upstream connections 60 s): a client that sends as the server closes sees ECONNRESET,
// which a busy client (a starved event loop, late timers) meets often. Longer than 60 s, the client closes first;
// max_connections still bounds how many are held.
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/**
 * The HTTP server with its resource limits: a client that trickles a request (slowloris, a body sent a byte a
 * second) gets 408 after `request_timeout_ms` and is disconnected, and connections beyond `max_connections`
 * are closed as they arrive, so idle or hostile clients cannot exhaust file descriptors and memory. A
 * connection that is dropped is counted and reported at most once a minute, so an attack does not flood the log.
 */
export function createHttpServer(listener: RequestListener, limits: ServerLimits, log: Logger): Server {
  const server = createServer(
    {
      requestTimeout: limits.request_timeout_ms,
      headersTimeout: Math.min(HEADERS_TIMEOUT_MS, limits.request_timeout_ms),
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      connectionsCheckingInterval: Math.min(MAX_CHECK_INTERVAL_MS, Math.max(100, Math.floor(limits.request_timeout_ms / 4))),
    },
    listener,
  );
  server.maxConnections = limits.max_connections;
  let dropped = 0;
  let lastWarning = -Infinity;
  server.on('drop', () => {
    dropped++;
    const now = performance.now();
    if (now - lastWarning < DROP_WARNING_INTERVAL_MS) return;
    lastWarning = now;
    log.warn({ dropped, max_connections: limits.max_connections }, 'connections refused: server.max_connections reached');
    dropped = 0;
  });
  return server;
}
