import type { Context, Next } from 'koa';
import type { RequestAuthenticator } from '../auth/request-authenticator.js';

export const LOGIN_PATH = '/login';

/**
 * For UI pages (outside /api and /health): in a mode with a login form, a browser that asks for a page
 * (`Accept` lists text/html) without being signed in is sent to `/login?next=<path>` with a 302. Assets and
 * the login page itself pass, so the form can load. Mount it after the API router and before the UI.
 */
export function uiAuthRedirect(authenticator: RequestAuthenticator) {
  return async function uiAuthRedirectMiddleware(ctx: Context, next: Next): Promise<void> {
    if (!authenticator.loginAvailable || !wantsPage(ctx) || isExempt(ctx.path) || (await authenticator.identify(ctx))) return next();
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 302;
    ctx.redirect(`${LOGIN_PATH}?next=${encodeURIComponent(ctx.originalUrl)}`);
  };
}

function wantsPage(ctx: Context): boolean {
  return (ctx.method === 'GET' || ctx.method === 'HEAD') && /\btext\/html\b/i.test(ctx.get('accept'));
}

function isExempt(path: string): boolean {
  return path === '/health' || path === '/api' || path.startsWith('/api/') || path === LOGIN_PATH || path.startsWith(`${LOGIN_PATH}/`);
}
