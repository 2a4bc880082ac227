import { AppError } from './app-error.js';

export class NotFoundError extends AppError {
  readonly status = 404;
  readonly code = 'not-found';
  readonly title = 'Not Found';
  constructor(readonly resource: string, readonly id: string) {
    super(`${resource} "${id}" does not exist`);
  }
  override extensions() {
    return { resource: this.resource, id: this.id };
  }
}
