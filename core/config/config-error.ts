import type { PathProblem } from '../schema/format-schema-errors.js';

/**
 * Keys and values come from the file: a control character in one (a stray CR, a NUL) must not break the
 * one-line-per-problem output or forge a line of its own, so it is shown escaped.
 */
function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Startup stops with this: every problem found in the configuration, each as `path: rule`. */
export class ConfigError extends Error {
  constructor(readonly source: string, readonly problems: PathProblem[]) {
    super(`Invalid configuration in ${source}:\n${problems.map((p) => `  - ${printable(p.path)}: ${printable(p.message)}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}
