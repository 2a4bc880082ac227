const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** The config pattern for a duration such as `500ms`, `90s`, `30m`, `2h` or `1d` (the form core's own durations use). */
export const DURATION_PATTERN = '^[0-9]+(ms|s|m|h|d)$'; // the core's spelling, so config errors read "a duration like 10s"

/**
 * Milliseconds in a duration written like `30m`. The config schema already checked the text against
 * {@link DURATION_PATTERN}, so a mismatch here is a programming error and throws.
 *
 * @example
 * durationMs('30m') // 1_800_000
 */
export function durationMs(text: string): number {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(text);
  const unit = match?.[2] === undefined ? undefined : UNITS[match[2]];
  if (!match?.[1] || unit === undefined) throw new Error(`"${text}" is not a duration (expected e.g. 30m, 90s, 2h)`);
  return Number(match[1]) * unit;
}
