import { AppError } from './app-error.js';

/** 403: authenticated, but without the role the route needs. */
export class ForbiddenError extends AppError {
  readonly status = 403;
  readonly code = 'forbidden';
  readonly title = 'Forbidden';
  constructor(readonly requiredRole: string, readonly actualRole: string | undefined) {
    super(`this action needs the ${requiredRole} role; the request has ${actualRole ? `the ${actualRole} role` : 'no role'}`);
  }
  override extensions() {
    return { required_role: this.requiredRole };
  }
}
