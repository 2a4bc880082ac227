/** The specification's retry delays: 2, 4, 8, 16 and 32 seconds after the 1st … 5th failed attempt. */
export const RETRY_DELAYS_MS: readonly number[] = [2_000, 4_000, 8_000, 16_000, 32_000];

/**
 * How long to wait after the `failedAttempts`-th failed attempt of a delivery, or undefined when the webhook's
 * `retry` budget is spent (`retry: 0` means the first failure is final).
 */
export function retryDelayMs(failedAttempts: number, retry: number): number | undefined {
  if (failedAttempts > retry) return undefined;
  return RETRY_DELAYS_MS[failedAttempts - 1];
}
