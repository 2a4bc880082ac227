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
 * The rules of `sources:` that its schema cannot express: unique names, exactly one of `type` and `use`, a
 * `type` that names a built-in source, and a schedule of at most ten years. The plugin's own keys are checked
 * against its schema when it loads.
 */
export function checkSourceEntries(entries: readonly SourceEntry[]): PathProblem[] {
  const problems: PathProblem[] = [];
  const seen = new Map<string, number>();
  const known = Object.keys(BUILT_IN.source);
  entries.forEach((entry, i) => {
    const first = seen.get(entry.name);
    if (first !== undefined) problems.push({ path: `sources[${i}].name`, message: `"${entry.name}" is already the name of sources[${first}]; names must be unique` });
    else seen.set(entry.name, i);
    if (entry.type === undefined && entry.use === undefined) {
      problems.push({ path: `sources[${i}]`, message: `needs "type" (one of ${known.map((k) => `"${k}"`).join(', ')}) or "use" (a source plugin)` });
    } else if (entry.type !== undefined && entry.use !== undefined) {
      problems.push({ path: `sources[${i}]`, message: 'give either "type" (a built-in source) or "use" (a source plugin), not both' });
    } else if (entry.type !== undefined && !Object.hasOwn(BUILT_IN.source, entry.type)) {
      problems.push({ path: `sources[${i}].type`, message: `unknown type "${entry.type}": must be one of ${known.map((k) => `"${k}"`).join(', ')} (or write "use" for a third-party source plugin)` });
    }
    if (entry.schedule !== 'manual' && parseDuration(entry.schedule) > MAX_SCHEDULE_DAYS * DAY_MS) {
      problems.push({
        path: `sources[${i}].schedule`,
        message: `must be at most ${MAX_SCHEDULE_DAYS}d (ten years), got "${entry.schedule}"; write "manual" for a source that runs only when started through the API`,
      });
    }
  });
  return problems;
}
