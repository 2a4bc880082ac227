import type { Context, Next } from 'koa';
import { DecisionLinkGoneError } from '../errors/decision-link-gone-error.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { ValidationError } from '../errors/validation-error.js';
import { DecisionLinksRateLimitedError } from '../errors/decision-links-rate-limited-error.js';
import { sendJson } from '../http/send-json.js';
import type { Decision } from '../queue/queue-service.js';
import { decidePage, outcomeOf, plainPage } from './decide-page.js';
import type { DecideRateLimit } from './decide-rate-limit.js';
import type { LinkDecisions, LinkState } from './link-decisions.js';

const PATH = /^\/decide\/([^/]*)$/;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
/** A decision is one word; anything longer is not one of ours. */
const MAX_BODY_BYTES = 1024;
const ACTIONS: Readonly<Record<string, Decision>> = { approve: 'approved', reject: 'rejected' };

// The page shows a cover from its source's server: no script, no frames, forms only back here, and no Referer, so
// the token in this page's address is never sent to the cover's host.
const PAGE_HEADERS = {
  'Content-Security-Policy': "default-src 'none'; img-src 'self' http: https:; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Robots-Tag': 'noindex, nofollow',
  'X-Content-Type-Options': 'nosniff',
};

/**
 * `GET /decide/{token}` shows the item and two buttons and decides nothing; `POST /decide/{token}` with
 * `action=approve|reject` (a form, or JSON) decides. No sign-in: the token is the credential, so these answer in
 * every auth mode, ahead of the cross-site guard (another site cannot know a token to post to). A browser gets a
 * page; a caller that sends or asks for JSON gets JSON (problem+json for every refusal).
 */
export function decisionLinkPages(decisions: LinkDecisions, limit: DecideRateLimit, clientOf: (ctx: Context) => string) {
  return async function decisionLinkMiddleware(ctx: Context, next: Next): Promise<void> {
    // Every request passes here: a prefix test first, the pattern only for /decide/ paths.
    const match = ctx.path.startsWith('/decide/') ? PATH.exec(ctx.path) : null;
    if (!match) return next();
    const token = decodeSegment(match[1] ?? '');
    const wantsJson = ctx.is('application/json') === 'application/json' || ctx.accepts('html', 'json') === 'json';
    // Not a token at all: answered without a lookup, and without spending the client's budget (behind a proxy that
    // is not in trusted_proxies, every visitor shares one).
    if (!TOKEN_SHAPE.test(token)) return answer(ctx, { kind: 'unknown' }, wantsJson, false);
    const wait = limit.take(clientOf(ctx));
    if (wait > 0) {
      ctx.set('Retry-After', String(wait));
      if (wantsJson) throw new DecisionLinksRateLimitedError(wait);
      return sendPage(ctx, 429, plainPage('Too many requests', '<p>Too many requests from this address. Try again in a minute.</p>'));
    }
    if (ctx.method === 'GET' || ctx.method === 'HEAD') return answer(ctx, decisions.look(token), wantsJson, false);
    if (ctx.method !== 'POST') {
      ctx.set('Allow', 'GET, HEAD, POST');
      ctx.throw(405, `${ctx.method} is not allowed here; GET shows the decision, POST makes it`);
    }
    const action = await readAction(ctx);
    // Own keys only: `constructor` or `__proto__` must not reach the decision as something else.
    const decision = action !== undefined && Object.hasOwn(ACTIONS, action) ? ACTIONS[action] : undefined;
    if (decision === undefined) {
      const problem = { path: 'body.action', message: 'must be "approve" or "reject"' };
      if (wantsJson) throw new ValidationError([problem]);
      return sendPage(ctx, 400, plainPage('Choose an action', '<p>Choose Approve or Reject.</p>'));
    }
    return answer(ctx, await decisions.decide(token, decision), wantsJson, true);
  };
}

function answer(ctx: Context, state: LinkState, wantsJson: boolean, posted: boolean): void {
  if (!wantsJson) {
    const { status, html } = decidePage(state, posted);
    return sendPage(ctx, status, html);
  }
  if (state.kind === 'unknown') throw new NotFoundError('decision link', 'this one');
  if (state.kind === 'dead') {
    const item = state.item ? { item_status: state.item.status, ...(state.item.decided_by ? { decided_by: state.item.decided_by } : {}), ...(state.item.decided_via ? { decided_via: state.item.decided_via } : {}) } : {};
    throw new DecisionLinkGoneError(state.reason, `this decision link no longer works (${state.reason}). ${state.item ? outcomeOf(state.item, false) : ''}`.trim(), item);
  }
  ctx.set('Cache-Control', 'no-store');
  sendJson(ctx, { status: state.kind === 'live' ? 'pending' : state.item.status, expires_at: new Date(state.link.expires_at).toISOString(), item: state.item });
}

function sendPage(ctx: Context, status: number, html: string): void {
  ctx.status = status;
  ctx.set(PAGE_HEADERS);
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = html;
}

/** `action` from a form (`action=approve`) or JSON (`{"action":"approve"}`); undefined when there is none. */
async function readAction(ctx: Context): Promise<string | undefined> {
  const type = ctx.is('application/x-www-form-urlencoded', 'application/json');
  if (type === false || type === null) {
    ctx.throw(415, `send action=approve|reject as a form (application/x-www-form-urlencoded) or JSON (got ${ctx.get('content-type').slice(0, 100) || 'no body'})`);
  }
  const text = await readSmallBody(ctx);
  if (type === 'application/x-www-form-urlencoded') return new URLSearchParams(text).get('action') ?? undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' && 'action' in parsed && typeof parsed.action === 'string' ? parsed.action : undefined;
  } catch {
    ctx.throw(400, 'invalid JSON');
  }
}

async function readSmallBody(ctx: Context): Promise<string> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > MAX_BODY_BYTES) ctx.throw(413, `a decision body is at most ${MAX_BODY_BYTES} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) ctx.throw(413, `a decision body is at most ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return ''; // malformed escapes: not a token
  }
}
