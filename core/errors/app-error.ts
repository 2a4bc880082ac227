/**
 * The base of every error the service means to show a client. `problemDetails()` turns it into an RFC 9457
 * problem: `status` and `code` always, `detail` and `extensions()` only below 500.
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
  /** Extra problem members. Never secrets. */
  extensions(): Record<string, unknown> {
    return {};
  }
}
