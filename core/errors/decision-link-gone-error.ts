import { AppError } from './app-error.js';

/** A decision link that no longer decides (410): used, revoked, expired, or its item decided another way. */
export class DecisionLinkGoneError extends AppError {
  readonly status = 410;
  readonly code = 'decision-link-gone';
  readonly title = 'Gone';
  constructor(readonly reason: string, message: string, private readonly item: Record<string, unknown>) {
    super(message);
  }
  override extensions() {
    return { reason: this.reason, ...this.item };
  }
}
