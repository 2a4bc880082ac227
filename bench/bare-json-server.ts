import { createServer } from 'node:http';

export interface BareServer {
  url: string;
  close(): Promise<void>;
}

/**
 * The yardstick: a plain `node:http` server on 127.0.0.1:0 that answers every request with `body()` serialised
 * as JSON, with the same headers a JSON API sends. It does what any server must do per request and nothing else.
 * With `serializeOnce` it serialises the first answer and sends that text ever after: the floor for a server
 * that keeps its answers serialised.
 */
export async function startBareJsonServer(body: () => unknown, options: { serializeOnce?: boolean } = {}): Promise<BareServer> {
  let serialized: string | undefined;
  const server = createServer((_req, res) => {
    const text = options.serializeOnce ? (serialized ??= JSON.stringify(body())) : JSON.stringify(body());
    res.writeHead(200, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(text),
      'Cache-Control': 'no-store',
    });
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error(`bare server: expected a TCP address, got ${String(address)}`);
  const { port } = address;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
