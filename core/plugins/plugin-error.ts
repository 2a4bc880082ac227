/** A failure inside a plugin, tagged with the plugin's name so logs and the operator view say who failed. */
export class PluginError extends Error {
  readonly code = 'plugin-failed';
  constructor(readonly pluginName: string, readonly operation: string, options: ErrorOptions & { message?: string }) {
    const cause = options.cause instanceof Error ? options.cause.message : String(options.cause);
    super(options.message ?? `plugin "${pluginName}" failed in ${operation}: ${cause}`, options);
    this.name = 'PluginError';
  }
}
