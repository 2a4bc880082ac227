import { isRetryLaterError, type Clock, type RetryLaterError } from '@crateflow/sdk';

export interface RetryPageOptions {
  /** Tries in all, the first included. */
  attempts: number;
  /** Wait before the second try; doubled before each further one. */
  firstDelayMs: number;
  clock: Clock;
  signal: AbortSignal;
  /** Called before each wait, to log what is retried and why. */
  onRetry(err: RetryLaterError, attempt: number, delayMs: number): void;
}

/**
 * Reads one page again after a passing failure (a timeout, a 5xx, a refused connection: the RetryLaterErrors of
 * the API client). Jellyfin 10.11 answers album pages slowly (jellyfin #15313), and one page that missed its
 * deadline must not fail a sync of thousands of albums. Other errors (a wrong key) are thrown at once; the last
 * passing failure is thrown once the tries are used up. Waits run on the plugin's clock, so tests need no sleep.
 */
export async function retryPage<T>(read: () => Promise<T>, options: RetryPageOptions): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (err: unknown) {
      if (!isRetryLaterError(err) || attempt >= options.attempts || options.signal.aborted) throw err;
      const delayMs = options.firstDelayMs * 2 ** (attempt - 1);
      options.onRetry(err, attempt, delayMs);
      await wait(options.clock, delayMs, options.signal);
    }
  }
}

/** Resolves after `ms` on `clock`, or at once when `signal` aborts (the caller then stops paging). */
function wait(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      cancel();
      signal.removeEventListener('abort', done);
      resolve();
    };
    const cancel = clock.schedule(ms, done);
    signal.addEventListener('abort', done, { once: true });
  });
}
