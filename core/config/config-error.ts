import type { PathProblem } from '../schema/format-schema-errors.js';

/** Startup stops with this: every problem found in the configuration, each as `path: rule`. */
export class ConfigError extends Error {
  constructor(readonly source: string, readonly problems: PathProblem[]) {
    super(`Invalid configuration in ${source}:\n${problems.map((p) => `  - ${p.path}: ${p.message}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}
