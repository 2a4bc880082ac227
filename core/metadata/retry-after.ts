/**
 * The longest wait a `Retry-After` is honoured for: 5 minutes. MusicBrainz itself asks for 0 or 1 s
 * (shared/reference/musicbrainz-api.md §2); a larger value comes from a proxy, an outage page or a hostile server,
 * and the wait holds back every MusicBrainz request of the instance (the shared pacer). Uncapped, one
 * `Retry-After: 999999999` froze search, album panels and discovery until a restart (issue #27).
 */
export const MAX_HONOURED_RETRY_AFTER_MS = 5 * 60 * 1000;

/**
 * The wait a `Retry-After` header asks for, in ms: delta-seconds or an HTTP date (RFC 9110 §10.2.3), at most
 * {@link MAX_HONOURED_RETRY_AFTER_MS}. Undefined when absent or unreadable. MusicBrainz sends `1` for the per-IP
 * limit and `0` when shedding load (shared/reference/musicbrainz-api.md §2).
 */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Math.min(MAX_HONOURED_RETRY_AFTER_MS, Number(text) * 1000);
  // An HTTP date names its day and zone; without letters, Date.parse would read "-5" as the year -5.
  const date = /[a-z]/i.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.min(MAX_HONOURED_RETRY_AFTER_MS, Math.max(0, date - now));
}
