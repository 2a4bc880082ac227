import { PluginError } from './plugin-error.js';

/**
 * Runs one call into a plugin with a deadline, so a plugin that hangs cannot stall the caller, and turns any
 * failure into a PluginError carrying the plugin's name. Errors from the sdk (RetryLaterError, …) stay
 * reachable as `cause`.
 */
export async function guardPluginCall<T>(pluginName: string, operation: string, timeoutMs: number, call: () => Promise<T> | T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new PluginError(pluginName, operation, { cause: new Error(`no answer within ${timeoutMs} ms`) })),
      timeoutMs,
    );
    timer.unref();
  });
  try {
    return await Promise.race([Promise.resolve().then(call), deadline]);
  } catch (err: unknown) {
    throw err instanceof PluginError ? err : new PluginError(pluginName, operation, { cause: err });
  } finally {
    clearTimeout(timer);
  }
}
