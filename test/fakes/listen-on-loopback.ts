import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type AsyncRequestListener = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export interface LoopbackServer {
  readonly server: Server;
  readonly port: number;
  /** `http://127.0.0.1:<port>` with no trailing slash. */
  readonly origin: string;
  /** Stops listening and drops every open connection, so keep-alive sockets never hold a test open. */
  close(): Promise<void>;
}

/**
 * Starts a node:http server on 127.0.0.1. Port 0 (the default) picks a free port; a fixed port is used
 * to come back on the same address after a simulated restart.
 */
export async function listenOnLoopback(handler: AsyncRequestListener, port = 0): Promise<LoopbackServer> {
  const server = createServer((req, res) => {
    handler(req, res).catch((error: unknown) => {
      // A bug in the fake itself: answer 500 with the stack, so the test fails loudly with the reason
      // instead of hanging on a response that never comes.
      const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`fake server error: ${detail}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error(`expected a TCP address, got ${String(address)}`);
  const bound: AddressInfo = address;
  return {
    server,
    port: bound.port,
    origin: `http://127.0.0.1:${bound.port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
