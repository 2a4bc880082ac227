import type { TSchema } from 'typebox';
import type { RouteSpec } from './route.js';

type JsonObject = Record<string, unknown>;

const ProblemSchema = {
  type: 'object',
  required: ['type', 'title', 'status'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    instance: { type: 'string' },
    errors: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } },
  },
};

/**
 * Builds the OpenAPI 3.1 document from the same route declarations that validate requests. Schemas carrying an
 * `$id` become `components.schemas` entries referenced by `$ref`; `:id` path segments become `{id}`.
 */
export function buildOpenApi(routes: readonly RouteSpec[], info: { version: string; prefix: string }): JsonObject {
  const components: Record<string, unknown> = { Problem: ProblemSchema };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of routes) {
    const path = info.prefix + spec.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const operation: JsonObject = {
      operationId: operationId(spec),
      summary: spec.summary,
      tags: [spec.tag],
      parameters: [...parameters(spec.params, 'path', components), ...parameters(spec.query, 'query', components)],
      responses: responses(spec, components),
    };
    if (spec.description) operation.description = spec.description;
    if (spec.access !== 'public') operation.security = [{ basic: [] }, { bearer: [] }, { apiKey: [] }, { session: [] }];
    if (spec.body) {
      operation.requestBody = { required: true, content: { 'application/json': { schema: extract(spec.body, components) } } };
    }
    paths[path] = { ...paths[path], [spec.method]: operation };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Crateflow API', version: info.version, description: 'Queue, wishlist, downloads, library and webhooks of a Crateflow server.' },
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        basic: { type: 'http', scheme: 'basic' },
        bearer: { type: 'http', scheme: 'bearer', description: 'an API key from ui.auth.api_keys' },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        session: { type: 'apiKey', in: 'cookie', name: 'crateflow_session' },
      },
    },
  };
}

function operationId(spec: RouteSpec): string {
  const words = spec.path.split('/').filter(Boolean).map((w) => (w.startsWith(':') ? `by_${w.slice(1)}` : w));
  return [spec.method, ...words].join('_').replace(/[^A-Za-z0-9_]/g, '_');
}

function parameters(schema: TSchema | undefined, where: 'path' | 'query', components: Record<string, unknown>): JsonObject[] {
  const properties = schema && 'properties' in schema ? schema.properties : undefined;
  if (!schema || !properties || typeof properties !== 'object') return [];
  const required = new Set<unknown>('required' in schema && Array.isArray(schema.required) ? schema.required : []);
  return Object.entries(properties).map(([name, property]: [string, unknown]) => {
    const parameter: JsonObject = { name, in: where, required: where === 'path' || required.has(name), schema: extract(property, components) };
    if (property && typeof property === 'object' && 'description' in property) parameter.description = property.description;
    return parameter;
  });
}

function responses(spec: RouteSpec, components: Record<string, unknown>): JsonObject {
  const status = String(spec.status ?? (spec.response ? 200 : 204));
  const result: JsonObject = {
    [status]: spec.response
      ? { description: 'Success', content: { 'application/json': { schema: extract(spec.response, components) } } }
      : { description: 'Success, no content' },
  };
  const errorStatuses = new Set<number>([...(spec.errors ?? []), 400, 500]);
  if (spec.access !== 'public') {
    errorStatuses.add(401);
    if (spec.access !== 'viewer') errorStatuses.add(403);
  }
  if (spec.body) errorStatuses.add(413);
  for (const code of [...errorStatuses].sort()) {
    result[String(code)] = { description: 'Problem', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } };
  }
  return result;
}

/** Copies a schema, moving every sub-schema with an `$id` into components and leaving a `$ref` behind. */
function extract(schema: unknown, components: Record<string, unknown>): unknown {
  if (Array.isArray(schema)) return schema.map((item) => extract(item, components));
  if (!schema || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key !== '$id') copy[key] = extract(value, components);
  }
  if ('$id' in schema && typeof schema.$id === 'string') {
    components[schema.$id] = copy;
    return { $ref: `#/components/schemas/${schema.$id}` };
  }
  return copy;
}
