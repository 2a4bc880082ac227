import type { Context } from 'koa';
import type { Identity, Role } from '@crateflow/sdk';

/**
 * How the API layer asks "who is this?". The composition root builds the implementation from `ui.auth`
 * (disabled, or an auth plugin) plus the API keys, which are accepted in every mode.
 */
export interface RequestAuthenticator {
  /** false when `ui.auth.enabled` is false: requests need no credentials (API keys are still recognised). */
  readonly enabled: boolean;
  /** Reported by /api/v1/auth/info: `disabled`, `basic`, `proxy`, … */
  readonly type: string;
  /** The `WWW-Authenticate` value sent with a 401. */
  readonly challenge: string;
  identify(ctx: Context): Promise<Identity | null>;
  /** The role an identity holds, or undefined when it holds none. */
  roleOf(identity: Identity): Role | undefined;
}
