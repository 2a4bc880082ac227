// A RetryLaterError without a hint: long enough not to hammer a service that is down, short next to a daily schedule.
const DEFAULT_RETRY_MS = 15 * 60_000;
// The longest retry hint honoured. Services ask for seconds (ListenBrainz's rate-limit window is 10 s, MusicBrainz
// sends 1); a hint of years, or of 1e300 ms from a broken header, would hold the source off its schedule that long
// and make its retry time no date at all (new Date(...).toISOString() throws), so it waits a day at most.
const MAX_RETRY_MS = 24 * 3_600_000;

/**
 * How long after a run a source that threw RetryLaterError is run again: its hint (`retryAfterMs`), at most a
 * day; without a usable hint (none, NaN), 15 minutes.
 */
export function sourceRetryDelayMs(hint: number | undefined): number {
  if (hint === undefined || Number.isNaN(hint)) return DEFAULT_RETRY_MS;
  return Math.min(Math.max(0, hint), MAX_RETRY_MS);
}
