/** Statuses whose `Retry-After` says when the receiver can take the delivery (RFC 9110 §10.2.3, RFC 6585 §4). */
export const RETRY_AFTER_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/**
 * Reads a `Retry-After` value as milliseconds from `now`: either delay-seconds (`120`) or an HTTP-date
 * (`Wed, 21 Oct 2026 07:28:00 GMT`). A date in the past means "now" (0). Undefined when the header is absent
 * or malformed, so the plain schedule applies.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  // Date.parse also takes forms that are not HTTP-dates (`2026`, `1/2/3`); require the IMF-fixdate shape.
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}
