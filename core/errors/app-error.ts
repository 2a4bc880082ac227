/**
 * The base of every error the service means to show a client. `problemDetails()` turns it into an RFC 9457
 * problem: `status` and `code` always, `detail` and `extensions()` only when `clientFault` (below 500 by default).
 */
export abstract class AppError extends Error {
  abstract readonly status: number;
  /** Stable kebab-case identifier; the problem `type` is built from it. */
  abstract readonly code: string;
  /** A short, constant summary of the problem type (the problem `title`). */
  abstract readonly title: string;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
  /**
   * The client can act on this (its detail is for it, and it is not a server fault to log as an error): every 4xx,
   * and a 5xx a client's own requests caused, like a full store (507).
   */
  get clientFault(): boolean {
    return this.status < 500;
  }
  /** Extra problem members. Never secrets. */
  extensions(): Record<string, unknown> {
    return {};
  }
}
