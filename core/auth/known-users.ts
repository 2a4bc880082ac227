import type { Identity, Role } from '@crateflow/sdk';

/**
 * What the authenticator asks of the users an admin manages (core/users implements it): kept here, so that auth
 * does not depend on how users are stored.
 */
export interface KnownUsers {
  /** The role and state an admin set for `name`, if any. */
  profileOf(name: string): { role?: Role; disabled?: boolean } | undefined;
  /** Whether `name` is config.yaml's basic-auth user (always an admin). */
  isConfigUser(name: string): boolean;
}

/** API keys made through the API (core/users implements it). */
export interface KnownApiKeys {
  readonly configured: boolean;
  /** The identity a presented key acts as, or null. */
  recognise(presented: string): Identity | null;
}
