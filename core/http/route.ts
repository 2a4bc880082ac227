import type { Static, TSchema } from 'typebox';
import type { AuthRequest, Identity, Logger, Scope } from '@crateflow/sdk';
import type { Access } from '../auth/access.js';
import type { NotModified } from './not-modified.js';
import type { SerializedJson } from './serialized-json.js';

/** What a handler gets: validated input and who is asking. */
export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** The authenticated caller; null when authentication is disabled or the route is public. */
  identity: Identity | null;
  /** What the caller may do (every scope when authentication is disabled and nobody is signed in). */
  scopes: ReadonlySet<Scope>;
  requestId: string;
  /** What the auth layer sees of the request: lower-case headers, peer and client address, https, session cookie. */
  request: AuthRequest;
  log: Logger;
  /** Response headers the handler wants set (e.g. Set-Cookie, Location). */
  setHeader(name: string, value: string | string[]): void;
}

export type { Access } from '../auth/access.js';

/**
 * A route declared as data. The same declaration registers the Koa handler, validates the request before
 * `handle` runs, and becomes an operation in `/api/v1/openapi.json`.
 */
export interface RouteSpec<P extends TSchema = TSchema, Q extends TSchema = TSchema, B extends TSchema = TSchema, R extends TSchema = TSchema> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Koa-style path below /api/v1, e.g. `/queue/:id/approve`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /** Required, so a new route cannot forget who may call it (test/core/auth/roles-matrix.test.ts lists every route). */
  access: Access;
  /** For public routes: still work out who is asking (identity is null when nobody is signed in). */
  identifyOptional?: boolean;
  params?: P;
  query?: Q;
  body?: B;
  /** The body may be left out (no bytes at all): the handler then gets `body` undefined. Sent, it must be JSON and valid. */
  bodyOptional?: boolean;
  /** The success response's schema; omit for 204. */
  response?: R;
  /** Success status (default 200, or 204 without a response schema). */
  status?: number;
  /** Statuses besides the success one that this route can answer with (for the OpenAPI document). */
  errors?: number[];
  /**
   * The success answer's media type when it is not JSON: the event stream (a stream of text), or `image` (the bytes
   * of a JPEG or PNG, with Content-Type set by the handler).
   */
  responseMediaType?: 'text/event-stream' | 'image';
  /**
   * For a route that only some auth modes serve (the login form and its sessions exist in basic mode only): those
   * modes, and whether this server serves it. The OpenAPI document lists the route whatever the mode, so a client
   * generated from one server fits every server; a server that does not serve it answers 404.
   */
  onlyInAuthModes?: { modes: readonly string[]; served: boolean };
  /** The answer's body: a value of the response schema, or the same already serialised; NotModified for a 304. */
  handle(input: RouteInput<Static<P>, Static<Q>, Static<B>>): Promise<Static<R> | SerializedJson | NotModified | undefined> | Static<R> | SerializedJson | NotModified | undefined;
}

/** Declares a route with its input types inferred from the schemas. */
export function route<P extends TSchema, Q extends TSchema, B extends TSchema, R extends TSchema>(
  spec: RouteSpec<P, Q, B, R>,
): RouteSpec {
  // The list of routes is heterogeneous; each spec's handler has already been checked against its own schemas.
  return spec as unknown as RouteSpec;
}
