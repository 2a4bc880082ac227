import type { PathProblem } from '../schema/format-schema-errors.js';

/**
 * The core's problems, then the plugins' ones that say something new. A block both validate (`webhooks: 5` is
 * not an array for the core schema nor for the webhooks plugin) would otherwise be reported twice, once with
 * the plugin's name appended.
 */
export function mergeProblems(core: readonly PathProblem[], plugins: readonly PathProblem[]): PathProblem[] {
  const seen = new Set(core.map((p) => `${p.path}\u0000${p.message}`));
  const merged = [...core];
  for (const problem of plugins) {
    const withoutPluginName = problem.message.replace(/ \([^()]+\)$/, '');
    const key = `${problem.path}\u0000${withoutPluginName}`;
    if (seen.has(key) || seen.has(`${problem.path}\u0000${problem.message}`)) continue;
    seen.add(key);
    merged.push(problem);
  }
  return merged;
}
