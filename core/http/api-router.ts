import Router from '@koa/router';
import type { TSchema } from 'typebox';
import type { Context, Middleware, Next } from 'koa';
import type { Identity, Logger, Scope } from '@crateflow/sdk';
import { ALL_SCOPES, allows, describeAccess, leastRoleFor } from '../auth/access.js';
import type { RequestAuthenticator } from '../auth/request-authenticator.js';
import { ForbiddenError } from '../errors/forbidden-error.js';
import { MethodNotAllowedError } from '../errors/method-not-allowed-error.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { UnauthorizedError } from '../errors/unauthorized-error.js';
import { ValidationError } from '../errors/validation-error.js';
import { compileCoercing, compileStrict, type Validator } from '../schema/ajv.js';
import { formatSchemaErrors } from '../schema/format-schema-errors.js';
import type { Access, RouteSpec } from './route.js';
import { carriesBody } from './drain-unread-body.js';
import { NotModified } from './not-modified.js';
import { SerializedJson } from './serialized-json.js';
import { isJsonBody, sendJson } from './send-json.js';

export const API_PREFIX = '/api/v1';

export interface ApiRouterOptions {
  authenticator: RequestAuthenticator;
  log: Logger;
  /** Check every response against its schema (tests turn this on; it costs time on the hot path). */
  validateResponses: boolean;
}

/** Registers every route spec on one @koa/router under /api/v1, with validation and access control. */
export function createApiRouter(routes: readonly RouteSpec[], options: ApiRouterOptions): Router {
  const router = new Router({ prefix: API_PREFIX });
  const parseJson = jsonBodyParser();
  for (const spec of routes) {
    // Documented in /openapi.json for every mode, but not served in this one: asked anyway, it is an unknown route.
    if (spec.onlyInAuthModes?.served === false) continue;
    const handlers = [authorize(spec, options.authenticator)];
    if (spec.body && spec.bodyOptional) handlers.push(optionalJsonBody(parseJson));
    else if (spec.body) handlers.push(requireJson, parseJson);
    else if (spec.method !== 'get') handlers.push(refuseFormBody);
    handlers.push(handle(spec, options));
    router.register(spec.path, [spec.method.toUpperCase()], handlers);
  }
  return router;
}

/**
 * Problems for /api paths no route answered: 404 for an unknown path, 405 (with the router's `Allow` header)
 * for a known path asked with the wrong method. The router says 501 for a method no route serves (TRACE,
 * PROPFIND…); that too is a request this path does not accept, so it is a 405 as well.
 */
export async function apiNotFound(ctx: Context, next: Next): Promise<void> {
  await next();
  if (ctx.body !== undefined || !ctx.path.startsWith(API_PREFIX)) return;
  if (ctx.status === 404) throw new NotFoundError('route', `${ctx.method} ${ctx.path}`);
  if (ctx.status === 405 || ctx.status === 501) {
    const allowed = ctx.response.get('Allow');
    throw new MethodNotAllowedError(ctx.method, ctx.path, allowed);
  }
}

function authorize(spec: RouteSpec, authenticator: RequestAuthenticator) {
  const access: Access = spec.access;
  return async function authorizeMiddleware(ctx: Context, next: Next): Promise<void> {
    if (access === 'public') {
      const identity = spec.identifyOptional ? await authenticator.identify(ctx) : null;
      ctx.state.identity = identity;
      ctx.state.scopes = identity ? authenticator.grantOf(identity).scopes : authenticator.enabled ? NO_SCOPES : ALL_SCOPES;
    } else {
      const identity = await authenticator.identify(ctx);
      let scopes = ALL_SCOPES;
      if (authenticator.enabled || identity) {
        if (!identity) throw new UnauthorizedError(authenticator.challengeFor(ctx));
        const grant = authenticator.grantOf(identity);
        if (grant.disabled) throw new ForbiddenError('an enabled account', undefined, `the account "${identity.name}" is disabled; ask an admin`);
        if (!allows(access, grant.scopes)) throw new ForbiddenError(describeAccess(access), grant.role, undefined, leastRoleFor(access));
        scopes = grant.scopes;
      }
      ctx.state.identity = identity;
      ctx.state.scopes = scopes;
    }
    await next();
  };
}

const NO_SCOPES: ReadonlySet<Scope> = new Set();

/**
 * The JSON body parser (1 MiB, UTF-8, objects and arrays only). It is imported, with co-body, qs and raw-body
 * behind it, on the first request that carries a body: a start serves /health without loading any of it.
 */
function jsonBodyParser(): Middleware {
  let parser: Promise<Middleware> | undefined;
  const load = async (): Promise<Middleware> => {
    const { bodyParser } = await import('@koa/bodyparser');
    return bodyParser({
      enableTypes: ['json'],
      jsonLimit: '1mb',
      encoding: 'utf-8',
      onError(err: Error, ctx: Context) {
        const status = 'status' in err && typeof err.status === 'number' ? err.status : 400;
        if (status === 413) ctx.throw(413, 'request body too large');
        ctx.throw(400, `invalid JSON: ${err.message.replace(/\s+/g, ' ').slice(0, 120)}`);
      },
    });
  };
  return async function parseJsonBody(ctx: Context, next: Next): Promise<void> {
    const parse = await (parser ??= load());
    await parse(ctx, next);
  };
}

/** For a route whose body is optional: JSON is required and parsed only when a body was sent. */
function optionalJsonBody(parseJson: Middleware): Middleware {
  return async function optionalBody(ctx: Context, next: Next): Promise<void> {
    if (!carriesBody(ctx.req)) return refuseFormBody(ctx, next);
    await requireJson(ctx, () => parseJson(ctx, next));
  };
}

async function requireJson(ctx: Context, next: Next): Promise<void> {
  if (!ctx.is('application/json') && !ctx.is('+json')) {
    ctx.throw(415, `send the body as application/json (got ${ctx.get('content-type') || 'no content type'})`);
  }
  await next();
}

/**
 * A route without a body still refuses a form's content type (urlencoded, multipart, text/plain): an old
 * browser sent such a cross-site form POST without an Origin header, so this is what stops it. Scripts send no
 * body (and no content type) or JSON.
 */
async function refuseFormBody(ctx: Context, next: Next): Promise<void> {
  const type = ctx.get('content-type');
  // The header itself is judged: ctx.is() answers null for a request without a body, which here is the normal case
  // (a client that labels its empty request JSON, as wrk and some HTTP libraries do).
  const media = type.split(';')[0]?.trim().toLowerCase() ?? '';
  if (type !== '' && media !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(media)) {
    throw new ValidationError([{ path: 'headers.content-type', message: 'must be absent (this route takes no body) or application/json' }], `this route takes no body; send none, or JSON (got Content-Type ${type.slice(0, 100)})`);
  }
  await next();
}

function handle(spec: RouteSpec, options: ApiRouterOptions) {
  // Validators compile on a route's first request, not at startup (compiling all of them cost ~90 ms per start).
  const checkParams = lazy(spec.params, compileCoercing);
  const checkQuery = lazy(spec.query, compileCoercing);
  const checkBody = lazy(spec.body, compileStrict);
  const checkResponse = lazy(options.validateResponses ? spec.response : undefined, compileStrict);
  const successStatus = spec.status ?? (spec.response ? 200 : 204);

  return async function routeHandler(ctx: Context): Promise<void> {
    const params = validate(checkParams(), { ...ctx.params }, 'params');
    const query = validate(checkQuery(), { ...ctx.query }, 'query');
    const body = spec.bodyOptional && !carriesBody(ctx.req) ? undefined : validate(checkBody(), ctx.request.body, 'body');
    const identity: Identity | null = ctx.state.identity ?? null;
    const result = await spec.handle({
      params,
      query,
      body,
      identity,
      scopes: ctx.state.scopes ?? ALL_SCOPES,
      requestId: ctx.state.requestId,
      // Read on demand: few handlers look at the request itself, and describing it costs on every request.
      get request() {
        return options.authenticator.describe(ctx);
      },
      log: ctx.state.log ?? options.log,
      setHeader: (name, value) => ctx.set(name, value),
    });
    if (result instanceof NotModified) {
      ctx.status = 304;
      return;
    }
    const responseCheck = checkResponse();
    if (responseCheck && !responseCheck(result instanceof SerializedJson ? JSON.parse(result.text) : result)) {
      throw new Error(`${spec.method.toUpperCase()} ${spec.path} answered outside its schema: ${JSON.stringify(formatSchemaErrors(responseCheck.errors))}`);
    }
    ctx.status = successStatus;
    if (result === undefined || successStatus === 204) return;
    if (result instanceof SerializedJson) {
      ctx.type = 'application/json';
      ctx.body = result.text;
    } else if (isJsonBody(result)) {
      sendJson(ctx, result);
    } else {
      ctx.body = result;
    }
  };
}

/** A validator compiled the first time it is needed; undefined when the route declares no such schema. */
function lazy(schema: TSchema | undefined, compile: (schema: TSchema) => Validator<unknown>): () => Validator<unknown> | undefined {
  let compiled: Validator<unknown> | undefined;
  return () => (schema ? (compiled ??= compile(schema)) : undefined);
}

function validate(check: Validator<unknown> | undefined, value: unknown, part: 'params' | 'query' | 'body'): unknown {
  if (!check) return part === 'body' ? undefined : value;
  if (part === 'query' && value && typeof value === 'object') stripEmpty(value);
  if (!check(value)) throw new ValidationError(formatSchemaErrors(check.errors, part));
  if (part === 'query' && value && typeof value === 'object') refuseInfinite(value);
  return value;
}

// The coercing validator turns `1e309` or `Infinity` into Infinity and lets it pass `integer` and `maximum` (seen
// with ajv 8; test/core/http/page-query.test.ts), so a paging parameter would reach SQLite as a real number.
function refuseInfinite(query: object): void {
  const infinite = Object.entries(query).filter(([, item]) => typeof item === 'number' && !Number.isFinite(item));
  if (infinite.length > 0) throw new ValidationError(infinite.map(([key]) => ({ path: `query.${key}`, message: 'must be a finite number' })));
}

// `?source=` means "no filter", the same as leaving the parameter out.
function stripEmpty(query: object): void {
  for (const [key, item] of Object.entries(query)) {
    if (item === '') Reflect.deleteProperty(query, key);
  }
}
