const DAY = 24 * 60 * 60 * 1000;

/** The days a release must fall in to be new: `since` to `until`, both `YYYY-MM-DD`, inclusive. */
export interface ReleaseWindow {
  readonly since: string;
  readonly until: string;
}

/** From the last completed run (less the overlap), or `firstRunDays` back on the first run, to today. */
export function releaseWindow(now: number, lastCompletedAt: string | undefined, firstRunDays: number, overlapDays: number): ReleaseWindow {
  const last = lastCompletedAt === undefined ? Number.NaN : Date.parse(lastCompletedAt);
  const from = Number.isFinite(last) ? last - overlapDays * DAY : now - firstRunDays * DAY;
  return { since: day(from), until: day(now) };
}

/**
 * Whether a MusicBrainz first-release date (`1997`, `1997-06` or `1997-06-16`; shared/reference/musicbrainz-api.md §5)
 * lies in the window, compared at its own precision: "2026" is new in any window that touches 2026. An unknown
 * date is never new, and a date after today is not released yet (a later run proposes it).
 */
export function isInWindow(date: string | undefined, window: ReleaseWindow): boolean {
  if (!date || !/^\d{4}(-\d{2}(-\d{2})?)?$/.test(date)) return false;
  return date >= window.since.slice(0, date.length) && date <= window.until.slice(0, date.length);
}

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
