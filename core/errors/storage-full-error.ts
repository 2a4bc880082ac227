import { AppError } from './app-error.js';

/** The store holds as many live items as `storage.max_items` allows (507 Insufficient Storage). */
export class StorageFullError extends AppError {
  readonly status = 507;
  readonly code = 'storage-full';
  readonly title = 'Insufficient Storage';

  constructor(readonly held: number, readonly limit: number, readonly adding: number) {
    super(`the store holds ${held} live items and its limit (storage.max_items) is ${limit}: decide or remove pending and wishlist items, or raise the limit, before adding ${adding} more`);
  }

  override get clientFault(): boolean {
    return true; // the answer tells the client how to make room; nothing failed in the server
  }

  override extensions(): Record<string, unknown> {
    return { held: this.held, limit: this.limit };
  }
}
