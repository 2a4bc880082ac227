/**
 * Narrowing helpers for JSON that arrives from an external service: every field is checked, nothing is cast.
 * A field with the wrong type reads as absent.
 *
 * @example
 * const body = res.json();
 * if (!isRecord(body)) throw new Error('expected an object');
 * const name = stringField(body, 'Name') ?? 'unknown';
 * for (const item of arrayField(body, 'Items')) if (isRecord(item)) …
 */
export type JsonRecord = Record<string, unknown>;

/** Whether `value` is a JSON object (not null, not an array). @example if (isRecord(body)) … */
export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The string at `key`, or undefined. @example stringField({ a: 'x' }, 'a') === 'x' */
export function stringField(record: JsonRecord, key: string): string | undefined {
  const value = record[key];
  return typeof value === 'string' ? value : undefined;
}

/** The finite number at `key`, or undefined. @example numberField({ n: 3 }, 'n') === 3 */
export function numberField(record: JsonRecord, key: string): number | undefined {
  const value = record[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The boolean at `key`, or undefined. @example booleanField({ ok: true }, 'ok') === true */
export function booleanField(record: JsonRecord, key: string): boolean | undefined {
  const value = record[key];
  return typeof value === 'boolean' ? value : undefined;
}

/** The array at `key`, or an empty array. @example arrayField({ Items: [1] }, 'Items').length === 1 */
export function arrayField(record: JsonRecord, key: string): unknown[] {
  const value = record[key];
  return Array.isArray(value) ? value : [];
}
