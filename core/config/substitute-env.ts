import type { PathProblem } from '../schema/format-schema-errors.js';
import { joinPath } from '../schema/format-schema-errors.js';

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Replaces `${NAME}` in every string of a parsed config with the environment variable's value, so secrets can
 * stay out of the file. A reference to an unset variable is a problem reported at its key path. A value that
 * contains itself (a YAML alias inside its own anchor, `a: &x { b: *x }`) is a problem too, not endless recursion.
 */
export function substituteEnv(value: unknown, env: NodeJS.ProcessEnv, problems: PathProblem[], path = '', ancestors: readonly object[] = []): unknown {
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
  if (!value || typeof value !== 'object') return value;
  if (ancestors.includes(value)) {
    problems.push({ path: path || '(root)', message: 'contains itself (a YAML alias used inside its own anchor)' });
    return null;
  }
  const inside = [...ancestors, value];
  if (Array.isArray(value)) return value.map((item, i) => substituteEnv(item, env, problems, `${path}[${i}]`, inside));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // Defined, not assigned: a key named "__proto__" stays a key (and is reported as unknown) instead of
    // replacing the object's prototype.
    Object.defineProperty(out, key, { value: substituteEnv(item, env, problems, joinPath(path, key), inside), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
