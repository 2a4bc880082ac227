/**
 * A failed call to the Crateflow API. `statusCode` is the HTTP status (absent for network errors and timeouts);
 * `problem` is the application/problem+json body when the server sent one.
 */
export class CrateflowApiError extends Error {
  constructor(
    message: string,
    readonly statusCode?: number,
    readonly problem?: unknown,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'CrateflowApiError';
  }
}

/** Builds the message for a non-2xx answer from the problem's `detail`/`title` when there is one. */
export function describeFailure(method: string, path: string, status: number, body: unknown): string {
  let reason = '';
  if (typeof body === 'object' && body !== null) {
    const detail = 'detail' in body && typeof body.detail === 'string' ? body.detail : undefined;
    const title = 'title' in body && typeof body.title === 'string' ? body.title : undefined;
    reason = detail ?? title ?? '';
  } else if (typeof body === 'string') {
    reason = body.slice(0, 200);
  }
  return `Crateflow answered ${status} to ${method} ${path}${reason ? `: ${reason}` : ''}`;
}
