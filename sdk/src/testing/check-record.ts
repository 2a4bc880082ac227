import { AssertionError } from 'node:assert';
import type { Static, TSchema } from 'typebox';
import { Value } from 'typebox/value';

/**
 * Asserts that `value` matches one of the sdk's record schemas (or any typebox schema), failing with every
 * problem listed by path. The kit checks everything a plugin returns with it; plugin tests may too.
 *
 * @example
 * import { DownloadUpdate } from '@crateflow/sdk';
 * assertRecord(DownloadUpdate, await client.status(ref, item), 'status() result');
 */
export function assertRecord<S extends TSchema>(schema: S, value: unknown, what: string): asserts value is Static<S> {
  if (Value.Check(schema, value)) return;
  throw new AssertionError({ message: `${what} is not valid:\n${describeErrors(schema, value)}\n  got: ${preview(value)}`, actual: value });
}

/** Every schema error as `  - /path: message` lines (at most 10). */
export function describeErrors(schema: TSchema, value: unknown): string {
  const lines = Value.Errors(schema, value)
    .filter((e) => e.keyword !== 'boolean') // typebox reports an extra key twice; keep the readable one
    .slice(0, 10)
    .map((e) => `  - ${e.instancePath || '(root)'}: ${e.message}${extraKeys(e.params)}`);
  return lines.join('\n');
}

function extraKeys(params: unknown): string {
  if (typeof params !== 'object' || params === null || !('additionalProperties' in params)) return '';
  const keys = params.additionalProperties;
  return Array.isArray(keys) ? ` (${keys.join(', ')})` : '';
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
