import { checkNamedEntries } from '../config/check-named-entries.js';
import { parseDuration } from '../config/parse-duration.js';
import type { SourceEntry } from '../config/source-entry.schema.js';
import { BUILT_IN } from '../plugins/plugin-mounts.js';
import type { PathProblem } from '../schema/format-schema-errors.js';

// The longest schedule taken. Any length is waited correctly (the clock sleeps past Node's 24.8-day timer limit
// in steps); past this it is a typo or a way of saying "never", which `manual` says, and far enough past it the
// next run's date would not even be a date (JavaScript dates end in the year 275760).
const MAX_SCHEDULE_DAYS = 3650;
const DAY_MS = 86_400_000;

/**
 * The rules of `sources:` that its schema cannot express: those of every named entry list (checkNamedEntries), and a
 * schedule of at most ten years. The plugin's own keys are checked
 * against its schema when it loads.
 */
export function checkSourceEntries(entries: readonly SourceEntry[]): PathProblem[] {
  const problems = checkNamedEntries(entries, 'sources', BUILT_IN.source, 'source');
  entries.forEach((entry, i) => {
    if (entry.schedule !== 'manual' && parseDuration(entry.schedule) > MAX_SCHEDULE_DAYS * DAY_MS) {
      problems.push({
        path: `sources[${i}].schedule`,
        message: `must be at most ${MAX_SCHEDULE_DAYS}d (ten years), got "${entry.schedule}"; write "manual" for a source that runs only when started through the API`,
      });
    }
  });
  return problems;
}
