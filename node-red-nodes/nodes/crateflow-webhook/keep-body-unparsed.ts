import type { HttpApp, HttpHandler } from '../node-red-api.js';

/**
 * Keeps Node-RED's body parsers off the webhook route, so the receiver can read the exact bytes the signature covers.
 *
 * With Node-RED's shipped settings.js the editor is served at `/` (`httpAdminRoot` unset) and its app is mounted
 * on the same root app before `RED.httpNode`. The editor app parses every JSON request body (body-parser), so by the
 * time a `RED.httpNode` route runs, the stream is consumed and the raw bytes are gone. Node-RED's own HTTP In node
 * solves this for its "skip body parsing" option with a middleware at the top of the root app
 * (@node-red/nodes/core/network/21-httpin.js, `rawBodyCapture`). We do the same, but only set body-parser's own
 * "already parsed" flag `req._body`: every body-parser middleware then passes the request through untouched and
 * the route handler still reads (and size-limits) the stream itself.
 *
 * Returns a function that removes the middleware again (on node close or redeploy).
 */
export function keepBodyUnparsed(app: HttpApp, routePath: string): () => void {
  const root = rootOf(app);
  const fullPath = normalise(`${app.path?.() ?? ''}/${routePath}`);
  const markUnparsed: HttpHandler = (req, _res, next) => {
    if (req.method === 'POST' && normalise(pathnameOf(req.url)) === fullPath) req._body = true;
    next();
  };
  root.use(markUnparsed);
  const stack = root._router?.stack;
  if (stack) {
    // express appends; the parsers were registered earlier, so move this layer in front of them.
    const index = stack.findIndex((layer) => layer.handle === markUnparsed);
    if (index > 0) stack.unshift(...stack.splice(index, 1));
  }
  return () => {
    const layers = root._router?.stack;
    if (!layers) return;
    const index = layers.findIndex((layer) => layer.handle === markUnparsed);
    if (index >= 0) layers.splice(index, 1);
  };
}

function rootOf(app: HttpApp): HttpApp {
  let current = app;
  while (current.parent) current = current.parent;
  return current;
}

function pathnameOf(url: string | undefined): string {
  const raw = url ?? '/';
  const query = raw.indexOf('?');
  return query >= 0 ? raw.slice(0, query) : raw;
}

/** express matches routes case-insensitively and ignores a trailing slash (its defaults); so does this. */
function normalise(path: string): string {
  return path.replace(/\/{2,}/g, '/').replace(/(.)\/$/, '$1').toLowerCase();
}
