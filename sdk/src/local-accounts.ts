import type { Identity } from './kinds/auth.js';

/**
 * The local accounts an admin manages in Crateflow's UI and API (sdk 1.6), offered to auth plugins that check
 * passwords (`context.accounts`). Older servers leave it out: feature-detect.
 *
 * @example
 * const signedIn = await ctx.accounts?.check(username, password, 'session');
 * if (signedIn) await sessions.create(signedIn.identity.name, signedIn.stamp);
 */
export interface LocalAccounts {
  /**
   * The identity of the account when the password is right and the account is enabled, else null, with the stamp
   * of the credentials it was checked against (keep it with a session). An unknown name costs the same scrypt check
   * as a known one, so the answer's timing does not tell which names exist.
   */
  check(username: string, password: string, via: Identity['via']): Promise<{ identity: Identity; stamp: string } | null>;
  /**
   * The identity of an enabled account whose credentials still carry `stamp`, or null: unknown, disabled, deleted,
   * or its password set (or the account disabled) since the stamp was given. A session kept with a stamp ends then.
   */
  identityOf(username: string, stamp: string, via: Identity['via']): Identity | null;
}
