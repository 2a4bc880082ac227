import type { PathProblem } from '../schema/format-schema-errors.js';

/**
 * The rules every list of named plugin entries shares (`sources:`, `notifications:`): unique names, and exactly one
 * of `type` (a built-in, one of `builtIns`) and `use` (a third-party plugin of that `kind`).
 */
export function checkNamedEntries(entries: readonly { name: string; type?: string; use?: string }[], listPath: string, builtIns: Record<string, string>, kind: string): PathProblem[] {
  const problems: PathProblem[] = [];
  const seen = new Map<string, number>();
  const known = Object.keys(builtIns).map((k) => `"${k}"`).join(', ');
  entries.forEach((entry, i) => {
    const first = seen.get(entry.name);
    if (first !== undefined) problems.push({ path: `${listPath}[${i}].name`, message: `"${entry.name}" is already the name of ${listPath}[${first}]; names must be unique` });
    else seen.set(entry.name, i);
    if (entry.type === undefined && entry.use === undefined) {
      problems.push({ path: `${listPath}[${i}]`, message: `needs "type" (one of ${known}) or "use" (a ${kind} plugin)` });
    } else if (entry.type !== undefined && entry.use !== undefined) {
      problems.push({ path: `${listPath}[${i}]`, message: `give either "type" (a built-in ${kind}) or "use" (a ${kind} plugin), not both` });
    } else if (entry.type !== undefined && !Object.hasOwn(builtIns, entry.type)) {
      problems.push({ path: `${listPath}[${i}].type`, message: `unknown type "${entry.type}": must be one of ${known} (or write "use" for a third-party ${kind} plugin)` });
    }
  });
  return problems;
}
