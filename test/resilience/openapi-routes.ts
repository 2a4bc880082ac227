import { isRecord, recordOf, type JsonRecord } from './json-fields.js';
import { between, pick } from './seeded-random.js';

/** One operation of the OpenAPI document, with its schemas resolved enough to build requests. */
export interface RouteInfo {
  method: string;
  /** The templated path, e.g. `/api/v1/queue/{id}/approve`. */
  template: string;
  pathParams: { name: string; schema: JsonRecord }[];
  queryParams: { name: string; schema: JsonRecord }[];
  body: JsonRecord | undefined;
  /** Whether the operation declares a security requirement (not public). */
  secured: boolean;
  /** The auth modes that serve the operation (`x-auth-modes`); undefined when every mode does. */
  authModes: string[] | undefined;
  /** `METHOD /path` as used in reports. */
  label: string;
}

/** Every API operation (under /api/) of an OpenAPI 3.1 document (`GET /api/v1/openapi.json`); /health is not one. */
export function routesOf(openapi: unknown): RouteInfo[] {
  const doc = recordOf(openapi, 'openapi document');
  const components = recordOf(recordOf(doc.components, 'components').schemas, 'components.schemas');
  const resolve = (schema: unknown): JsonRecord => {
    const record = recordOf(schema, 'schema');
    const ref = record.$ref;
    if (typeof ref === 'string') return resolve(components[ref.replace('#/components/schemas/', '')]);
    return record;
  };
  const routes: RouteInfo[] = [];
  for (const [template, operations] of Object.entries(recordOf(doc.paths, 'paths'))) {
    if (!template.startsWith('/api/')) continue;
    for (const [method, operation] of Object.entries(recordOf(operations, template))) {
      const op = recordOf(operation, `${method} ${template}`);
      const parameters = Array.isArray(op.parameters) ? op.parameters.map((p) => recordOf(p, 'parameter')) : [];
      const params = (where: string) =>
        parameters.filter((p) => p.in === where).map((p) => ({ name: String(p.name), schema: deepResolve(resolve(p.schema), resolve) }));
      const content = isRecord(op.requestBody) && isRecord(op.requestBody.content) ? op.requestBody.content['application/json'] : undefined;
      routes.push({
        method: method.toUpperCase(),
        template,
        pathParams: params('path'),
        queryParams: params('query'),
        body: isRecord(content) ? deepResolve(resolve(content.schema), resolve) : undefined,
        secured: Array.isArray(op.security) && op.security.length > 0,
        authModes: Array.isArray(op['x-auth-modes']) ? op['x-auth-modes'].map(String) : undefined,
        label: `${method.toUpperCase()} ${template}`,
      });
    }
  }
  return routes;
}

/** The schema with every `$ref` inside replaced by its target (the API's schemas are not recursive). */
function deepResolve(schema: JsonRecord, resolve: (s: unknown) => JsonRecord): JsonRecord {
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (!isRecord(value)) return value;
    const target = typeof value.$ref === 'string' ? resolve(value) : value;
    return Object.fromEntries(Object.entries(target).map(([key, item]) => [key, walk(item)]));
  };
  return recordOf(walk(schema), 'schema');
}

/** The alternatives of an `anyOf`/`oneOf`, or the schema itself. */
export function alternatives(schema: JsonRecord): JsonRecord[] {
  const list = schema.anyOf ?? schema.oneOf;
  return Array.isArray(list) ? list.map((s) => recordOf(s, 'alternative')) : [schema];
}

const uuid = (random: () => number) => 'xxxxxxxx-xxxx-4xxx-8xxx-xxxxxxxxxxxx'.replace(/x/g, () => Math.floor(random() * 16).toString(16));

/**
 * A value that satisfies `schema` (for the shapes this API uses: objects, arrays, strings with the id and
 * MusicBrainz patterns or the uri format, numbers, booleans, consts and unions). `text` supplies free strings,
 * so a valid request can still carry hostile names.
 */
export function sampleValid(schema: JsonRecord, random: () => number, text: () => string): unknown {
  const options = alternatives(schema);
  const chosen = options.length > 1 ? pick(random, options) : schema;
  if ('const' in chosen) return chosen.const;
  if (Array.isArray(chosen.enum)) return pick(random, chosen.enum);
  switch (chosen.type) {
    case 'object': {
      const properties = isRecord(chosen.properties) ? chosen.properties : {};
      const required = new Set(Array.isArray(chosen.required) ? chosen.required : []);
      const value: JsonRecord = {};
      for (const [name, property] of Object.entries(properties)) {
        if (required.has(name) || random() < 0.5) value[name] = sampleValid(recordOf(property, name), random, text);
      }
      return value;
    }
    case 'array': {
      const min = typeof chosen.minItems === 'number' ? chosen.minItems : 0;
      const items = recordOf(chosen.items ?? {}, 'items');
      return Array.from({ length: Math.max(min, between(random, min, min + 3)) }, () => sampleValid(items, random, text));
    }
    case 'integer':
    case 'number': {
      const min = typeof chosen.minimum === 'number' ? chosen.minimum : 0;
      const max = typeof chosen.maximum === 'number' ? Math.min(chosen.maximum, min + 1000) : min + 1000;
      return between(random, min, max);
    }
    case 'boolean':
      return random() < 0.5;
    case 'string': {
      const pattern = typeof chosen.pattern === 'string' ? chosen.pattern : '';
      if (pattern.includes('{12}')) return uuid(random);
      if (pattern.includes('A-Za-z0-9_-')) return `id_${between(random, 0, 1e9)}`;
      if (chosen.format === 'uri') return `https://covers.example.com/${between(random, 0, 1e6)}.jpg`;
      const max = typeof chosen.maxLength === 'number' ? chosen.maxLength : 200;
      const min = typeof chosen.minLength === 'number' ? chosen.minLength : 0;
      const value = [...text()].slice(0, max).join('');
      return value.length >= Math.max(1, min) ? value : 'x'.repeat(Math.max(1, min));
    }
    default:
      return null;
  }
}
