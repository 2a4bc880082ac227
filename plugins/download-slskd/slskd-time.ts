/** An ISO date-time that already says which zone it is in: `Z` or an offset such as `+02:00`. */
const HAS_ZONE = /(?:Z|[+-]\d{2}:?\d{2})$/i;

/**
 * Reads an slskd timestamp as UTC. slskd stores `DateTime.UtcNow`, but a value read back from its SQLite
 * database loses the `Z` (`"2026-01-01T12:00:00.1234567"`), and JavaScript reads a date-time without a zone as
 * *local* time: on a host at UTC+2 a retry time would seem two hours later than it is. Seven fractional digits
 * (.NET ticks) are cut to milliseconds. Answers undefined for text that is not a date.
 *
 * @example
 * parseSlskdTime('2026-01-01T12:00:00.1234567') === Date.UTC(2026, 0, 1, 12, 0, 0, 123) // true, whatever the host's zone
 */
export function parseSlskdTime(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const trimmed = text.trim().replace(/(\.\d{3})\d+/, '$1');
  const ms = Date.parse(HAS_ZONE.test(trimmed) ? trimmed : `${trimmed}Z`);
  return Number.isNaN(ms) ? undefined : ms;
}
