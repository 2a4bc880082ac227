import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BaitServer {
  /** `http://127.0.0.1:<port>` or `http://[::1]:<port>`. */
  readonly origin: string;
  /** Requests it received: a refused redirect must leave this at 0. */
  readonly hits: number;
  close(): Promise<void>;
}

/**
 * A server a hostile redirect points at, standing in for something private on this machine (an admin page, a
 * metadata service): it answers every request with `body`, and counts them, so a test can tell whether the
 * service was made to connect at all.
 */
export async function startBaitServer(options: { host: '127.0.0.1' | '::1'; body: Buffer | string; contentType: string }): Promise<BaitServer> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    req.resume();
    res.writeHead(200, { 'content-type': options.contentType, 'content-length': Buffer.byteLength(options.body) });
    res.end(options.body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, options.host, () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error(`expected a TCP address, got ${String(address)}`);
  const { port }: AddressInfo = address;
  return {
    origin: options.host === '::1' ? `http://[::1]:${port}` : `http://127.0.0.1:${port}`,
    get hits() {
      return hits;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
