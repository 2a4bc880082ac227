import { Ajv, type CodeOptions, type ErrorObject, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import type { TSchema } from 'typebox';

// The one place ajv instances are made. Bodies and config validate strictly with defaults applied; query and
// path parameters arrive as strings, so their instance coerces types. Schemas are not checked against the JSON
// Schema meta-schema: compiling that costs ~40 ms of every start, our schemas come from typebox, and strict mode
// still refuses unknown keywords, bad types and misplaced keywords (a plugin's schema included).
export function createAjv(coerceTypes: boolean, code: CodeOptions = {}): Ajv {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: true, coerceTypes, verbose: true, validateSchema: false, code });
  formats.default(ajv);
  return ajv;
}

const strictAjv = createAjv(false);
const coercingAjv = createAjv(true);

export type Validator<T> = ValidateFunction<T>;
export type SchemaErrors = ErrorObject[];

/** Compiles a validator for bodies, config and responses (no type coercion). */
export function compileStrict<T>(schema: TSchema): ValidateFunction<T> {
  return strictAjv.compile<T>(withoutId(schema));
}

/**
 * Compiles strict validators for documents checked once, at start (the config, the plugins' settings), on an ajv
 * instance of their own that is dropped with them: the shared instance would keep the config's validator (about
 * 1 MB of generated code) for the life of the process. Their code is not optimised: that pass costs more than it
 * saves on a single run.
 */
export function oneUseCompiler(): <T>(schema: TSchema) => ValidateFunction<T> {
  const ajv = createAjv(false, { optimize: false });
  return <T>(schema: TSchema) => ajv.compile<T>(withoutId(schema));
}

/** A strict validator compiled when first asked for, so a module that declares one adds nothing to startup. */
export function compileStrictOnFirstUse<T>(schema: TSchema): () => ValidateFunction<T> {
  let compiled: ValidateFunction<T> | undefined;
  return () => (compiled ??= compileStrict<T>(schema));
}

/** Compiles a validator for query and path parameters (strings coerced to the declared types). */
export function compileCoercing<T>(schema: TSchema): ValidateFunction<T> {
  return coercingAjv.compile<T>(withoutId(schema));
}

// `$id` names a schema in the OpenAPI document; ajv would reject compiling two schemas that embed the same one,
// so the validators compile an id-less copy. `verbose` keeps the failing schema on each error, for messages.
// A `default` on the root schema means nothing to ajv (strict mode rejects it); callers apply it themselves.
export function withoutId(schema: TSchema): object {
  const copy = JSON.parse(JSON.stringify(schema, (key, value: unknown) => (key === '$id' ? undefined : value)));
  delete copy.default;
  return copy;
}
