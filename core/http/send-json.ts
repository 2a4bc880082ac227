import type { Context } from 'koa';

/**
 * Answers with `value` as JSON text. Koa serialises an object body itself, but first tests it with `instanceof`
 * Blob, ReadableStream and Response, and the first of those tests loads Node's web streams and fetch: about 45 ms
 * on the first request after a start, and memory the service never uses. A string body skips the tests.
 */
export function sendJson(ctx: Context, value: unknown, type = 'application/json'): void {
  ctx.type = type;
  ctx.body = JSON.stringify(value);
}

/** Whether koa would have serialised `value` as JSON (a plain object or an array, not a Buffer or a stream). */
export function isJsonBody(value: unknown): boolean {
  if (Array.isArray(value)) return true;
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
