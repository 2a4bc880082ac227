import type { Context } from 'koa';
import type { AuthRequest, Identity, Role, Scope } from '@crateflow/sdk';

/** What an identity may do. */
export interface Grant {
  role: Role | undefined;
  scopes: ReadonlySet<Scope>;
  /** An admin disabled the account: it may do nothing (403), whatever its role. */
  disabled: boolean;
}

/** A successful login: who signed in, and the `Set-Cookie` value that carries the session. */
export interface LoginResult {
  identity: Identity;
  setCookie: string;
}

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
  /** Whether the auth mode has a login form (`POST /auth/login`); false for proxy mode and when disabled. */
  readonly loginAvailable: boolean;
  /** The `WWW-Authenticate` value for this request: a script in a browser gets one that does not open a password dialog. */
  challengeFor(ctx: Context): string;
  /** What the auth layer sees of a request (peer, trusted proxy, client address, https, lower-case headers). */
  describe(ctx: Context): AuthRequest;
  /**
   * The identity a request carries, or null. Throws TooManyRequestsError while the client is locked out after
   * failed logins, and CrossSiteRequestError for a state-changing request from another site that a browser
   * credential (session cookie) would authenticate.
   */
  identify(ctx: Context): Promise<Identity | null>;
  /** The role an identity holds, or undefined when it holds none. */
  roleOf(identity: Identity): Role | undefined;
  /** What an identity may do: its role (the highest it holds), its scopes, and whether its account is disabled. */
  grantOf(identity: Identity): Grant;
  /** Checks a username and password; throws UnauthorizedError when wrong, TooManyRequestsError when locked out. */
  login(req: AuthRequest, credentials: { username: string; password: string }): Promise<LoginResult>;
  /** Ends the request's session, if any; returns the `Set-Cookie` value that clears the cookie. */
  logout(req: AuthRequest): Promise<string>;
  /** Whether the auth mode keeps sessions that `revokeSessions` can end (basic). */
  readonly sessionsRevocable: boolean;
  /** Ends every session; returns how many ended. */
  revokeSessions(): Promise<number>;
}
