import type { SourceEntry } from '../config/source-entry.schema.js';
import { BUILT_IN } from '../plugins/plugin-mounts.js';
import type { PathProblem } from '../schema/format-schema-errors.js';

/**
 * The rules of `sources:` that its schema cannot express: unique names, exactly one of `type` and `use`, and a
 * `type` that names a built-in source. The plugin's own keys are checked against its schema when it loads.
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
  });
  return problems;
}
