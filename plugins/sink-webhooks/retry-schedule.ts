/** The specification's retry delays: 2, 4, 8, 16 and 32 seconds after the 1st … 5th failed attempt. */
export const RETRY_DELAYS_MS: readonly number[] = [2_000, 4_000, 8_000, 16_000, 32_000];

/** The longest wait the schedule ever makes; a receiver's `Retry-After` is honoured up to this. */
export const MAX_RETRY_DELAY_MS = 32_000;

/**
 * How long to wait after the `failedAttempts`-th failed attempt of a delivery, or undefined when the webhook's
 * `retry` budget is spent (`retry: 0` means the first failure is final).
 *
 * `retryAfterMs` is what a 429 or 503 asked for (`Retry-After`). The wait is then the longer of the schedule's
 * step and the receiver's wish, but never beyond the schedule's longest step: a receiver asking for an hour
 * would otherwise hold a delivery (and its slot in the outbox) far past what an operator configured.
 */
export function retryDelayMs(failedAttempts: number, retry: number, retryAfterMs?: number): number | undefined {
  if (failedAttempts > retry) return undefined;
  const step = RETRY_DELAYS_MS[failedAttempts - 1];
  if (step === undefined || retryAfterMs === undefined) return step;
  return Math.min(Math.max(step, retryAfterMs), MAX_RETRY_DELAY_MS);
}
