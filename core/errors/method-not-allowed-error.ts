import { AppError } from './app-error.js';

/** 405 for a known path with a method it does not serve (501 for a method the router does not know at all). */
export class MethodNotAllowedError extends AppError {
  readonly code = 'method-not-allowed';
  readonly title: string;
  readonly status: number;
  constructor(method: string, path: string, readonly allowed: string, status = 405) {
    super(`${path} does not accept ${method}${allowed ? `; it accepts ${allowed}` : ''}`);
    this.status = status;
    this.title = status === 501 ? 'Not Implemented' : 'Method Not Allowed';
  }
  override extensions() {
    return { allowed: this.allowed.split(', ').filter(Boolean) };
  }
}
