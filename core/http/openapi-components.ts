type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The `components.schemas` of the OpenAPI document, filled while the operations are described: every sub-schema
 * with an `$id` moves here and leaves a `$ref` behind.
 *
 * A request schema is described as a client may send it: a field the validator fills with its `default` may be
 * left out, so it is not `required` there (the declared schema lists it, because after validation it is always
 * present, which is what the handler's type says).
 */
export class OpenApiComponents {
  readonly schemas: JsonObject;

  constructor(initial: JsonObject) {
    this.schemas = { ...initial };
  }

  /** A schema of an answer, as declared. */
  response(schema: unknown): unknown {
    return this.extract(schema, 'response');
  }

  /** A schema of a request body or parameter: defaulted fields are optional. */
  request(schema: unknown): unknown {
    return this.extract(schema, 'request');
  }

  private extract(schema: unknown, direction: 'request' | 'response'): unknown {
    if (Array.isArray(schema)) return schema.map((item) => this.extract(item, direction));
    if (!isObject(schema)) return schema;
    const copy: JsonObject = {};
    for (const [key, value] of Object.entries(schema)) {
      if (key !== '$id') copy[key] = this.extract(value, direction);
    }
    if (direction === 'request' && Array.isArray(schema.required) && isObject(schema.properties)) {
      const properties = schema.properties;
      const required = schema.required.filter((name) => !(typeof name === 'string' && isObject(properties[name]) && 'default' in properties[name]));
      if (required.length > 0) copy.required = required;
      else delete copy.required;
    }
    if (typeof schema.$id !== 'string') return copy;
    this.register(schema.$id, copy);
    return { $ref: `#/components/schemas/${schema.$id}` };
  }

  // One name, one shape: two different schemas under one $id (or one schema with defaults used both ways) would
  // otherwise describe one of them wrongly, depending on the order of the routes.
  private register(id: string, schema: JsonObject): void {
    const existing = this.schemas[id];
    if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(schema)) {
      throw new Error(`two different schemas are named "${id}" in the OpenAPI document (a schema with defaults used in a request and an answer needs its own $id for the request)`);
    }
    this.schemas[id] = schema;
  }
}
