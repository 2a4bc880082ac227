import { AppError } from './app-error.js';

/** One invalid field: `path` as a JSON pointer into the request part (e.g. `/body/items/3/artist`). */
export interface FieldProblem {
  path: string;
  message: string;
}

export class ValidationError extends AppError {
  readonly status = 400;
  readonly code = 'validation-failed';
  readonly title = 'Bad Request';
  constructor(readonly errors: FieldProblem[], summary?: string) {
    super(summary ?? errors.map((e) => `${e.path}: ${e.message}`).join('; '));
  }
  override extensions() {
    return { errors: this.errors };
  }
}
