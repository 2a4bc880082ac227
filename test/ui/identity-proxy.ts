import { request, createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface IdentityProxy {
  url: string;
  /** The identity headers added to every request from now on (replacing any the browser sent). */
  identity: Record<string, string>;
  close(): Promise<void>;
}

const IDENTITY_HEADERS = ['remote-user', 'remote-groups', 'remote-name', 'remote-email'];

/**
 * A tiny reverse proxy standing in for Authelia + nginx: it forwards everything to `target` and sets the
 * `Remote-*` headers of the signed-in user, as a forward-auth proxy does. Streams pass through unbuffered,
 * so server-sent events work behind it.
 */
export async function startIdentityProxy(target: string, identity: Record<string, string>): Promise<IdentityProxy> {
  const upstream = new URL(target);
  const state = { identity };
  const server = createServer((req, res) => {
    // Like Traefik (and nginx with `proxy_set_header X-Forwarded-Host $host`), it names the host the browser asked
    // for, so the server can tell that a POST's Origin is its own site and not a cross-site request.
    const headers: IncomingHttpHeaders = { ...req.headers, host: upstream.host, 'x-forwarded-host': req.headers.host };
    for (const name of IDENTITY_HEADERS) delete headers[name];
    for (const [name, value] of Object.entries(state.identity)) headers[name.toLowerCase()] = value;
    const forward = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`proxy error: ${err.message}`);
    });
    req.pipe(forward);
    res.on('close', () => forward.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get identity() {
      return state.identity;
    },
    set identity(next) {
      state.identity = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
