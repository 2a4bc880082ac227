import { AppError } from './app-error.js';

/** 403: authenticated, but without the scope the route needs (or the account is disabled). */
export class ForbiddenError extends AppError {
  readonly status = 403;
  readonly code = 'forbidden';
  readonly title = 'Forbidden';
  /** `required` names what the route needs in words ("the scope `decide`"); `message` replaces the default detail. */
  constructor(readonly required: string, readonly actualRole: string | undefined, message?: string, readonly requiredRole?: string) {
    super(message ?? `this action needs ${required}; the request has ${actualRole ? `the ${actualRole} role` : 'no role'}`);
  }
  override extensions() {
    return { required: this.required, ...(this.requiredRole ? { required_role: this.requiredRole } : {}), ...(this.actualRole ? { role: this.actualRole } : {}) };
  }
}
