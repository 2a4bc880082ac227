/**
 * The wait a `Retry-After` header asks for, in ms: delta-seconds or an HTTP date (RFC 9110 §10.2.3). Undefined when
 * absent or unreadable. MusicBrainz sends `1` for the per-IP limit and `0` when shedding load
 * (shared/reference/musicbrainz-api.md §2).
 */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
