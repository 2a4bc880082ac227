/**
 * A `use:` value that leads to no module: a missing path, a package installed nowhere the server looks, or a
 * package whose package.json names no entry. The message says what was tried; startup reports it at the entry.
 */
export class PluginNotFoundError extends Error {
  readonly code = 'plugin-not-found';
  constructor(readonly use: string, message: string) {
    super(message);
    this.name = 'PluginNotFoundError';
  }
}
