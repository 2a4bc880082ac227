import type { PathProblem } from '../schema/format-schema-errors.js';
import { PluginError } from '../plugins/plugin-error.js';

/** A line of a plugin's message that already names its key: `ui.auth.password_hash: not an scrypt hash`. */
const KEYED_LINE = /^([A-Za-z_][\w-]*(?:\[\d+\]|\.[A-Za-z_][\w-]*)*): (.+)$/;

/**
 * A plugin that refuses its config in create() (checks that need more than the schema) is reported like every
 * other config problem, `path: message (plugin)`, instead of "could not start: plugin … failed in create: …".
 * Lines that name their key keep it; anything else is put at the plugin's config block.
 * Returns undefined for an error that is not a plugin's create() failure.
 */
export function pluginCreateProblems(err: unknown, configPathOf: (plugin: string) => string | undefined): PathProblem[] | undefined {
  if (!(err instanceof PluginError) || err.operation !== 'create') return undefined;
  const cause = err.cause instanceof Error ? err.cause.message : String(err.cause);
  const where = configPathOf(err.pluginName) ?? '(plugins)';
  return cause
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => {
      const keyed = KEYED_LINE.exec(line.trim());
      return keyed ? { path: keyed[1] ?? where, message: `${keyed[2]} (${err.pluginName})` } : { path: where, message: `${line.trim()} (${err.pluginName})` };
    });
}
