import { createServer, type Server } from 'node:http';

/**
 * Binds the listen address before anything else happens at start-up, answering 503 "starting" until the app
 * takes the server over. A start that cannot listen (the port is taken, often by a running Crateflow) then
 * fails before it opens, let alone rewrites, anything in the data dir.
 */
export function reservePort(port: number, host: string): Promise<Server> {
  const server = createServer((_req, res) => {
    res.writeHead(503, { 'Content-Type': 'application/problem+json', 'Retry-After': '1', Connection: 'close' });
    res.end(JSON.stringify({ type: 'about:blank', title: 'Service Unavailable', status: 503, detail: 'Crateflow is starting' }));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
