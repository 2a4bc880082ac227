import type { Clock } from '@crateflow/sdk';

export interface FailedLoginLimits {
  /** Failures allowed per client address within `windowMs`; the next attempt is refused. */
  maxFailures: number;
  windowMs: number;
  /** Client addresses tracked at most; the stalest are forgotten first. */
  maxClients: number;
}

export const DEFAULT_LOGIN_LIMITS: FailedLoginLimits = { maxFailures: 10, windowMs: 15 * 60_000, maxClients: 10_000 };

/**
 * Counts failed logins (login form, HTTP Basic, API keys) per client address in a sliding window. Once a
 * client reaches `maxFailures`, it is refused until its oldest failure leaves the window; a success clears
 * its record. Kept in memory: a restart forgives, which is acceptable for a rate limit.
 *
 * An attempt is reserved before its credentials are checked (`reserve`) and counts against the limit while
 * it is checked: otherwise 200 concurrent guesses all pass the "fewer than 10 failures?" test before the
 * first one fails, and all 200 are evaluated.
 */
export class FailedLoginLimiter {
  private readonly failures = new Map<string, number[]>();
  private readonly checking = new Map<string, number>();

  constructor(private readonly clock: Clock, private readonly limits: FailedLoginLimits = DEFAULT_LOGIN_LIMITS) {}

  /** Seconds the client must wait before trying again; 0 when it may try now. */
  retryAfterSeconds(client: string): number {
    const recent = this.recent(client);
    if (recent.length + (this.checking.get(client) ?? 0) < this.limits.maxFailures) return 0;
    // Attempts still being checked fill the rest: they end within a second or two, one way or the other.
    if (recent.length < this.limits.maxFailures) return 1;
    const oldest = recent[recent.length - this.limits.maxFailures] ?? this.clock.now();
    return Math.max(1, Math.ceil((oldest + this.limits.windowMs - this.clock.now()) / 1000));
  }

  /**
   * Reserves one attempt: 0 when reserved (end it with exactly one of `recordFailure`, `recordSuccess` or
   * `release`), else the seconds to wait, and nothing is reserved.
   */
  reserve(client: string): number {
    const wait = this.retryAfterSeconds(client);
    if (wait === 0) this.checking.set(client, (this.checking.get(client) ?? 0) + 1);
    return wait;
  }

  /** Ends a reserved attempt that reached no verdict (the check itself failed). */
  release(client: string): void {
    const count = (this.checking.get(client) ?? 0) - 1;
    if (count > 0) this.checking.set(client, count);
    else this.checking.delete(client);
  }

  recordFailure(client: string): void {
    this.release(client);
    const recent = this.recent(client);
    recent.push(this.clock.now());
    // Re-insert so the Map's order is least recently failed first; trim that end when over the cap.
    this.failures.delete(client);
    this.failures.set(client, recent.slice(-this.limits.maxFailures));
    while (this.failures.size > this.limits.maxClients) {
      const stalest = this.failures.keys().next();
      if (stalest.done) break;
      this.failures.delete(stalest.value);
    }
  }

  recordSuccess(client: string): void {
    this.release(client);
    this.failures.delete(client);
  }

  private recent(client: string): number[] {
    const since = this.clock.now() - this.limits.windowMs;
    const kept = (this.failures.get(client) ?? []).filter((at) => at > since);
    if (kept.length === 0) this.failures.delete(client);
    return kept;
  }
}
