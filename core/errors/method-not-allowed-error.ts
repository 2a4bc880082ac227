import { AppError } from './app-error.js';

/**
 * 405 for a known path asked with a method it does not serve, including methods no route serves at all (TRACE,
 * PROPFIND…): that is the client's mistake, so a 4xx naming the methods it may use, not a 501.
 */
export class MethodNotAllowedError extends AppError {
  readonly code = 'method-not-allowed';
  readonly title = 'Method Not Allowed';
  readonly status = 405;
  constructor(method: string, path: string, readonly allowed: string) {
    super(`${path} does not accept ${method}${allowed ? `; it accepts ${allowed}` : ''}`);
  }
  override extensions() {
    return { allowed: this.allowed.split(', ').filter(Boolean) };
  }
}
