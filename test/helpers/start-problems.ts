import assert from 'node:assert/strict';
import { ConfigError } from '../../core/config/config-error.js';
import type { PathProblem } from '../../core/schema/format-schema-errors.js';
import { startApp } from './start-app.js';

/** The problems a start with `config` is refused for; fails the test when the start succeeds or fails otherwise. */
export async function startProblems(config: Record<string, unknown>): Promise<PathProblem[]> {
  const error = await startApp({ config }).then(
    async (app) => {
      await app.close();
      return undefined;
    },
    (err: unknown) => err,
  );
  assert.ok(error instanceof ConfigError, `expected ${JSON.stringify(config)} to be refused with a ConfigError, got ${String(error)}`);
  return error.problems;
}
