import type { Identity } from './kinds/auth.js';

/**
 * The local accounts an admin manages in Crateflow's UI and API (sdk 1.6), offered to auth plugins that check
 * passwords (`context.accounts`). Older servers leave it out: feature-detect.
 *
 * @example
 * const identity = (await ctx.accounts?.check(username, password, 'session')) ?? null;
 */
export interface LocalAccounts {
  /**
   * The identity of the account when the password is right and the account is enabled, else null. An unknown
   * name costs the same scrypt check as a known one, so the answer's timing does not tell which names exist.
   */
  check(username: string, password: string, via: Identity['via']): Promise<Identity | null>;
  /**
   * The identity of an enabled account, or null when it is unknown, disabled, deleted, or its password was changed
   * after `signedInAt` (ms since the epoch): a session signed in before a reset ends.
   */
  identityOf(username: string, signedInAt: number, via: Identity['via']): Identity | null;
}
