import type { PathProblem } from '../schema/format-schema-errors.js';
import { joinPath } from '../schema/format-schema-errors.js';

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Replaces `${NAME}` in every string of a parsed config with the environment variable's value, so secrets can
 * stay out of the file. A reference to an unset variable is a problem reported at its key path.
 */
export function substituteEnv(value: unknown, env: NodeJS.ProcessEnv, problems: PathProblem[], path = ''): unknown {
  if (typeof value === 'string') {
    return value.replace(REFERENCE, (whole, name: string) => {
      const replacement = env[name];
      if (replacement === undefined) {
        problems.push({ path: path || '(root)', message: `environment variable ${name} is not set` });
        return whole;
      }
      return replacement;
    });
  }
  if (Array.isArray(value)) return value.map((item, i) => substituteEnv(item, env, problems, `${path}[${i}]`));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = substituteEnv(item, env, problems, joinPath(path, key));
    return out;
  }
  return value;
}
