import type { TSchema } from 'typebox';
import { OpenApiComponents } from './openapi-components.js';
import { describeAccess, describeRoleScopes } from '../auth/access.js';
import type { RouteSpec } from './route.js';

type JsonObject = Record<string, unknown>;

/** An operation served outside the API router (`GET /health`), described in the document beside the routes. */
export interface OutsideOperation {
  method: 'get';
  /** The whole path, e.g. `/health`. */
  path: string;
  summary: string;
  description: string;
  tag: string;
  responses: Record<number, { description: string; schema: TSchema }>;
}

export interface OpenApiInfo {
  version: string;
  /** The API routes' prefix, `/api/v1`. */
  prefix: string;
  outside?: readonly OutsideOperation[];
}

const ProblemSchema = {
  type: 'object',
  description: 'RFC 9457 problem details; some problems add members (e.g. `resource` and `id` for a 404)',
  required: ['type', 'title', 'status'],
  properties: {
    type: { type: 'string', description: 'a URI whose last segment is the stable error code, e.g. `not-found`' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string', description: 'what was expected and what was found (absent on 5xx)' },
    instance: { type: 'string', description: 'the path that was asked' },
    errors: {
      type: 'array',
      description: 'bad input: one entry per field',
      items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } },
    },
  },
};

/** What each error status means for a client of this API; every one is answered as problem+json. */
const PROBLEMS: Record<number, string> = {
  400: 'Bad input; `errors` names each field and what is wrong with it',
  401: 'No valid credentials; `WWW-Authenticate` names the challenge',
  403: "The caller's role does not allow this, or another site's page sent this state-changing request",
  404: 'Not found; the problem names what is missing',
  409: 'The item is not in a state that allows this',
  413: 'The JSON body is over 1 MiB',
  415: 'The body is not sent as application/json',
  421: 'The `Host` header names a site this service does not answer for (see server.allowed_hosts)',
  429: 'Too many requests; `Retry-After` says how many seconds to wait',
  500: 'An unexpected failure; no details are given',
  503: 'A part this operation needs is not available right now',
  507: 'The store holds as many items as storage.max_items allows',
};

const PROBLEM_HEADERS: Record<number, JsonObject> = {
  401: { 'WWW-Authenticate': { description: 'the challenge: Basic in basic mode, Bearer otherwise', schema: { type: 'string' } } },
  429: { 'Retry-After': { description: 'seconds to wait', schema: { type: 'integer' } } },
};

/** Every credential the service accepts; which ones apply depends on `ui.auth` (see each scheme). */
const SECURITY_SCHEMES = {
  bearer: { type: 'http', scheme: 'bearer', description: 'An API key from ui.auth.api_keys, in every auth mode (the key\'s role applies).' },
  apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'An API key from ui.auth.api_keys, in every auth mode (the key\'s role applies).' },
  basic: { type: 'http', scheme: 'basic', description: 'ui.auth.username and its password; basic mode only (the user is admin).' },
  session: {
    type: 'apiKey', in: 'cookie', name: 'crateflow_session',
    description: 'The cookie POST /api/v1/auth/login sets; basic mode only. A state-changing request with it must come from this site (Origin).',
  },
  proxy: {
    type: 'apiKey', in: 'header', name: 'Remote-User',
    description: 'Proxy mode only: the identity headers (ui.auth.trusted_headers) a forward-auth proxy sets, believed only from a peer in ui.auth.trusted_proxies; roles come from ui.auth.roles.',
  },
};
const AUTHENTICATED = Object.keys(SECURITY_SCHEMES).map((name) => ({ [name]: [] }));

const DESCRIPTION =
  'Queue, wishlist, downloads, library and webhooks of a Crateflow server. Operations with a security requirement ' +
  'need one of its credentials when authentication is on (ui.auth.enabled: true); with it off, they need none, ' +
  'though an API key that is sent still limits the caller to its role. Errors are application/problem+json.';

/**
 * Builds the OpenAPI 3.1 document from the same route declarations that validate requests. Schemas carrying an
 * `$id` become `components.schemas` entries referenced by `$ref`; `:id` path segments become `{id}`.
 */
export function buildOpenApi(routes: readonly RouteSpec[], info: OpenApiInfo): JsonObject {
  const components = new OpenApiComponents({ Problem: ProblemSchema });
  const paths: Record<string, Record<string, unknown>> = {};
  const operationIds = new Set<string>();
  const add = (path: string, method: string, operation: JsonObject) => {
    // The ids name the generated client's functions: derived from method and path, so they stay as long as the route.
    const id = String(operation.operationId);
    if (operationIds.has(id)) throw new Error(`two operations would share the operationId "${id}"`);
    operationIds.add(id);
    paths[path] = { ...paths[path], [method]: operation };
  };
  for (const spec of routes) {
    add(info.prefix + spec.path.replace(/:([A-Za-z_]+)/g, '{$1}'), spec.method, describeRoute(spec, components));
  }
  for (const outside of info.outside ?? []) add(outside.path, outside.method, describeOutside(outside, components));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Crateflow API',
      version: info.version,
      description: DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    // Relative to the document's own URL, so the paths (which carry /api/v1) resolve against whatever origin served it.
    servers: [{ url: '/', description: 'the server that serves this document' }],
    security: AUTHENTICATED,
    paths,
    components: { schemas: components.schemas, securitySchemes: SECURITY_SCHEMES },
  };
}

function describeRoute(spec: RouteSpec, components: OpenApiComponents): JsonObject {
  const operation: JsonObject = {
    operationId: operationId(spec.method, spec.path),
    summary: spec.summary,
    tags: [spec.tag],
    parameters: [...parameters(spec.params, 'path', components), ...parameters(spec.query, 'query', components)],
    responses: responses(spec, components),
    // Explicit on every operation: a public one (security: []) needs nothing, whatever the document's default.
    security: spec.access === 'public' ? [] : AUTHENTICATED,
  };
  const notes = [spec.description, accessNote(spec), spec.onlyInAuthModes && availabilityNote(spec.onlyInAuthModes.modes)].filter(Boolean);
  if (notes.length > 0) operation.description = notes.join('\n\n');
  if (spec.onlyInAuthModes) operation['x-auth-modes'] = spec.onlyInAuthModes.modes;
  if (spec.body) {
    operation.requestBody = { required: true, content: { 'application/json': { schema: components.request(spec.body) } } };
  }
  return operation;
}

function describeOutside(outside: OutsideOperation, components: OpenApiComponents): JsonObject {
  const responses: JsonObject = {};
  for (const [status, answer] of Object.entries(outside.responses)) {
    responses[status] = { description: answer.description, content: { 'application/json': { schema: components.response(answer.schema) } } };
  }
  return {
    operationId: operationId(outside.method, outside.path),
    summary: outside.summary,
    description: outside.description,
    tags: [outside.tag],
    security: [],
    responses,
  };
}

function accessNote(spec: RouteSpec): string {
  if (spec.access === 'public') return 'Public: no credentials needed.';
  return `Needs ${describeAccess(spec.access)}. Roles grant scopes: ${describeRoleScopes()} (an API key may narrow its user's).`;
}

function availabilityNote(modes: readonly string[]): string {
  const list = modes.map((mode) => `\`${mode}\``).join(' or ');
  return `Served only in the ${list} auth mode (ui.auth.enabled: true, ui.auth.type: ${modes.join(' | ')}); a server in any other mode answers 404. Listed whatever the mode, so one generated client fits every server.`;
}

function operationId(method: string, path: string): string {
  const words = path.split('/').filter(Boolean).map((w) => (w.startsWith(':') ? `by_${w.slice(1)}` : w));
  return [method, ...words].join('_').replace(/[^A-Za-z0-9_]/g, '_');
}

function parameters(schema: TSchema | undefined, where: 'path' | 'query', components: OpenApiComponents): JsonObject[] {
  const properties = schema && 'properties' in schema ? schema.properties : undefined;
  if (!schema || !properties || typeof properties !== 'object') return [];
  const required = new Set<unknown>('required' in schema && Array.isArray(schema.required) ? schema.required : []);
  return Object.entries(properties).map(([name, property]: [string, unknown]) => {
    // A parameter the validator fills with its default is one the client may leave out.
    const defaulted = property !== null && typeof property === 'object' && 'default' in property;
    const parameter: JsonObject = { name, in: where, required: where === 'path' || (required.has(name) && !defaulted), schema: components.request(property) };
    if (property && typeof property === 'object' && 'description' in property) parameter.description = property.description;
    return parameter;
  });
}

function responses(spec: RouteSpec, components: OpenApiComponents): JsonObject {
  const status = String(spec.status ?? (spec.response ? 200 : 204));
  const result: JsonObject = { [status]: success(spec, components) };
  const errorStatuses = new Set<number>([...(spec.errors ?? []), 400, 421, 500]);
  // 403 for a viewer route too: an identity whose groups map to no role (ui.auth.roles) may read nothing.
  if (spec.access !== 'public') errorStatuses.add(401).add(403);
  // Whoever is identified can be refused for a while: credentials that keep failing from one client address.
  if (spec.access !== 'public' || spec.identifyOptional) errorStatuses.add(429);
  // Every state-changing request is refused when another site's page sent it.
  if (spec.method !== 'get') errorStatuses.add(403);
  if (spec.body) errorStatuses.add(413).add(415);
  if (spec.onlyInAuthModes) errorStatuses.add(404);
  for (const code of [...errorStatuses].sort((a, b) => a - b)) {
    const answer: JsonObject = { description: PROBLEMS[code] ?? 'Problem', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } };
    if (PROBLEM_HEADERS[code]) answer.headers = PROBLEM_HEADERS[code];
    result[String(code)] = answer;
  }
  return result;
}

function success(spec: RouteSpec, components: OpenApiComponents): JsonObject {
  if (spec.responseMediaType === 'text/event-stream') {
    return {
      description: 'An open stream of server-sent events',
      content: { 'text/event-stream': { schema: { type: 'string', description: 'event:, id: and data: lines; each data line is one event as JSON' } } },
    };
  }
  if (spec.responseMediaType === 'image') {
    const image = (type: string) => ({ schema: { type: 'string', contentMediaType: type } });
    return { description: 'The image', content: { 'image/jpeg': image('image/jpeg'), 'image/png': image('image/png') } };
  }
  if (!spec.response) return { description: 'Success, no content' };
  return { description: 'Success', content: { 'application/json': { schema: components.response(spec.response) } } };
}
