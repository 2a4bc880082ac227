import type { Context, Middleware, Next } from 'koa';
import type { UiAsset, UiAssets } from './ui-assets.js';

/** The SPA's pages: each answers with the shell, which routes on the client. Keep in step with PAGES in assets/app.js. */
export const UI_PAGES: ReadonlySet<string> = new Set([
  '/', '/login', '/queue', '/requests', '/my-requests', '/wishlist', '/downloads', '/library', '/sources', '/webhooks', '/users',
]);

/**
 * Serves the web UI: the shell for every page path, and the static files and vendor modules by exact path.
 * Everything else falls through (to Koa's 404). Files carry an ETag and `Cache-Control: no-cache`, so a
 * browser revalidates hash-free URLs with a cheap 304 and never runs a stale module after an upgrade.
 */
export function serveUi(assets: UiAssets, options: { mediaOrigins?: readonly string[] } = {}): Middleware {
  const csp = contentSecurityPolicy(assets.importMapHash, options.mediaOrigins);
  return async function serveUiMiddleware(ctx: Context, next: Next): Promise<void> {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const asset = UI_PAGES.has(ctx.path) ? assets.page : assets.files.get(ctx.path);
    if (!asset) return next();
    setSecurityHeaders(ctx, csp);
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('ETag', asset.etag);
    ctx.vary('Accept-Encoding');
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.type = asset.type;
    ctx.body = negotiate(ctx, asset);
  };
}

function negotiate(ctx: Context, asset: UiAsset): Buffer {
  const encoding = asset.compressible ? ctx.acceptsEncodings('br', 'gzip', 'identity') : 'identity';
  if (encoding === 'br' || encoding === 'gzip') {
    ctx.set('Content-Encoding', encoding);
    return asset.encoded(encoding);
  }
  return asset.body;
}

/**
 * No inline script or style and no eval: scripts are our own modules plus the import map, allowed by its hash.
 * Covers may come from any host (Cover Art Archive, a music server on the LAN over plain http); `Referrer-Policy: same-origin`
 * keeps page URLs from leaking to them while same-origin fetches still carry the `Origin` header that
 * cookie-authenticated POSTs need. Audio plays from this origin and from exactly the preview provider's origins
 * (`mediaOrigins`, checked to be plain origins), nothing wider.
 */
export function contentSecurityPolicy(importMapHash: string, mediaOrigins: readonly string[] = []): string {
  return [
    "default-src 'none'",
    `script-src 'self' ${importMapHash}`,
    "style-src 'self'",
    "img-src 'self' data: https: http:",
    ["media-src 'self'", ...mediaOrigins].join(' '),
    "connect-src 'self'",
    "font-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function setSecurityHeaders(ctx: Context, csp: string): void {
  ctx.set('Content-Security-Policy', csp);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
}
