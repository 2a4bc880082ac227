import type { IncomingMessage, Server, ServerResponse } from 'node:http';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

// Requests that arrive while the service opens its store wait for it (a start takes a few hundred ms); past this
// many, a client is told to come back instead of piling up.
const MAX_WAITING = 256;

/** A bound server whose requests wait until the app takes it over. */
export interface ReservedServer {
  readonly server: Server;
  /** Hands the server and every waiting request to `handler`. */
  serve(handler: Handler): void;
}

/**
 * Binds the listen address before anything else happens at start-up. A start that cannot listen (the port is
 * taken, often by a running Crateflow) then fails before it opens, let alone rewrites, anything in the data dir.
 * `createServer` makes the server the app will keep (with its connection and timeout limits).
 */
export function reservePort(port: number, host: string, createServer: (listener: Handler) => Server): Promise<ReservedServer> {
  const waiting: [IncomingMessage, ServerResponse][] = [];
  const hold: Handler = (req, res) => {
    if (waiting.length < MAX_WAITING) {
      waiting.push([req, res]);
      return;
    }
    res.writeHead(503, { 'Content-Type': 'application/problem+json', 'Retry-After': '1', Connection: 'close' });
    res.end(JSON.stringify({ type: 'about:blank', title: 'Service Unavailable', status: 503, detail: 'Crateflow is starting' }));
  };
  const server = createServer(hold);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve({
        server,
        serve(handler) {
          server.off('request', hold);
          server.on('request', handler);
          for (const [req, res] of waiting.splice(0)) handler(req, res);
        },
      });
    });
  });
}
