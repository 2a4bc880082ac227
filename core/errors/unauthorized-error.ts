import { AppError } from './app-error.js';

/** 401: no valid credentials. `challenge` becomes the `WWW-Authenticate` header. */
export class UnauthorizedError extends AppError {
  readonly status = 401;
  readonly code = 'unauthenticated';
  readonly title = 'Unauthorized';
  constructor(readonly challenge: string, message = 'authentication is required') {
    super(message);
  }
}
