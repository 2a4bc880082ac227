import { AppError } from './app-error.js';

export class ConflictError extends AppError {
  readonly status = 409;
  readonly code = 'conflict';
  readonly title = 'Conflict';
  constructor(message: string, private readonly details: Record<string, unknown> = {}) {
    super(message);
  }
  override extensions() {
    return this.details;
  }
}
