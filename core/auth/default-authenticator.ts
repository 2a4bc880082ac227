import type { Context } from 'koa';
import type { AuthRequest, Clock, Identity, Logger, Role } from '@crateflow/sdk';
import type { AppConfig } from '../config/app-config.schema.js';
import { CredentialChecksBusyError } from '../errors/credential-checks-busy-error.js';
import { CrossSiteRequestError } from '../errors/cross-site-request-error.js';
import { TooManyRequestsError } from '../errors/too-many-requests-error.js';
import { UnauthorizedError } from '../errors/unauthorized-error.js';
import { CidrList } from '../net/cidr.js';
import { guardPluginCall } from '../plugins/guard-plugin-call.js';
import { PluginError } from '../plugins/plugin-error.js';
import { PluginUnavailableError } from '../errors/plugin-unavailable-error.js';
import type { LoadedPluginOf } from '../plugins/plugin-host.js';
import type { PathProblem } from '../schema/format-schema-errors.js';
import { ApiKeyVerifier } from './api-key-verifier.js';
import { describeRequest } from './auth-request.js';
import { CredentialCheckGate, DEFAULT_CHECK_LIMITS, type CredentialCheckLimits } from './credential-check-gate.js';
import { DEFAULT_LOGIN_LIMITS, FailedLoginLimiter, type FailedLoginLimits } from './failed-login-limiter.js';
import { ProxyTrust } from './proxy-trust.js';
import type { Grant, LoginResult, RequestAuthenticator } from './request-authenticator.js';
import { ROLE_ORDER, scopesOf } from './access.js';
import type { KnownApiKeys, KnownUsers } from './known-users.js';
import { crossSiteReason } from './cross-site-guard.js';
import { requestOrigin, SAFE_METHODS } from './same-origin.js';
import { clearedSessionCookie, sessionCookie } from './session-cookie.js';

type AuthConfig = AppConfig['ui']['auth'];

export interface DefaultAuthenticatorDeps {
  clock: Clock;
  log: Logger;
  limits?: FailedLoginLimits;
  checkLimits?: CredentialCheckLimits;
  /** How long a credential check (authenticate, login) may take before it is answered 503 (tests make it short). */
  checkTimeoutMs?: number;
  /** The gate every scrypt check waits at (one per app; built from `checkLimits` when absent). */
  gate?: CredentialCheckGate;
  /** The users an admin manages and the API keys made for them (absent: only config.yaml's user and keys). */
  users?: KnownUsers;
  storedKeys?: KnownApiKeys;
}

const PLUGIN_TIMEOUT_MS = 10_000;
// A credential check is an scrypt hash, one at a time behind the gate: on a machine loaded to a load average of 12
// one took over 10 s. The deadline is for a plugin that hangs, so it is generous; past it the client hears 503.
const CHECK_TIMEOUT_MS = 30_000;
/** What a client is told to wait after a check that did not answer in time. */
export const CHECK_RETRY_AFTER_S = 5;
const SCRIPT_CHALLENGE = 'Bearer realm="crateflow"';

/**
 * API keys in every mode, then the auth plugin of `ui.auth.type` when authentication is enabled. With
 * authentication disabled, a request without an API key is let through without an identity. Failed
 * credentials (API key, HTTP Basic, login form) count against the client address; state-changing requests
 * authenticated by a browser credential must come from this site.
 */
export class DefaultAuthenticator implements RequestAuthenticator {
  readonly enabled: boolean;
  readonly type: string;
  readonly challenge: string;
  readonly loginAvailable: boolean;
  readonly sessionsRevocable: boolean;
  private readonly apiKeys: ApiKeyVerifier;
  private readonly users: KnownUsers | undefined;
  private readonly storedKeys: KnownApiKeys | undefined;
  private readonly trust: ProxyTrust;
  /** Failed passwords (login form, HTTP Basic) per client. */
  private readonly limiter: FailedLoginLimiter;
  /** Failed API keys per client, apart: a browser's mistyped passwords must not lock out a bot's key. */
  private readonly keyLimiter: FailedLoginLimiter;
  private readonly gate: CredentialCheckGate;
  private readonly checkTimeoutMs: number;
  private readonly clock: Clock;
  private readonly log: Logger;
  private busyWarnedAt = Number.NEGATIVE_INFINITY;
  private readonly described = new WeakMap<Context, AuthRequest>();

  /** Config problems the schema cannot see: malformed `trusted_proxies` entries and API keys. */
  static check(config: AuthConfig): PathProblem[] {
    const { invalid } = CidrList.parse(config.trusted_proxies);
    return [
      ...invalid.map(({ index, entry }) => ({ path: `ui.auth.trusted_proxies[${index}]`, message: `"${entry}" is not an IP address or CIDR (e.g. 10.0.0.0/8, fd00::/8)` })),
      ...ApiKeyVerifier.check(config.api_keys),
    ];
  }

  constructor(private readonly config: AuthConfig, private readonly plugin: LoadedPluginOf<'auth'> | undefined, deps: DefaultAuthenticatorDeps) {
    this.enabled = config.enabled;
    this.type = config.enabled ? (plugin?.instance.type ?? config.type) : 'disabled';
    this.challenge = plugin?.instance.challenge ?? SCRIPT_CHALLENGE;
    this.loginAvailable = config.enabled && typeof plugin?.instance.login === 'function';
    this.sessionsRevocable = config.enabled && typeof plugin?.instance.revokeSessions === 'function';
    this.apiKeys = new ApiKeyVerifier(config.api_keys);
    this.users = deps.users;
    this.storedKeys = deps.storedKeys;
    this.trust = new ProxyTrust(CidrList.parse(config.trusted_proxies).list);
    this.limiter = new FailedLoginLimiter(deps.clock, deps.limits ?? DEFAULT_LOGIN_LIMITS);
    this.keyLimiter = new FailedLoginLimiter(deps.clock, deps.limits ?? DEFAULT_LOGIN_LIMITS);
    this.gate = deps.gate ?? new CredentialCheckGate(deps.checkLimits ?? DEFAULT_CHECK_LIMITS);
    this.checkTimeoutMs = deps.checkTimeoutMs ?? CHECK_TIMEOUT_MS;
    this.clock = deps.clock;
    this.log = deps.log;
    if (config.enabled && Object.keys(config.roles).length === 0 && !this.loginAvailable) {
      deps.log.info('ui.auth.roles is empty: every user the auth plugin recognises gets the admin role');
    }
  }

  describe(ctx: Context): AuthRequest {
    let req = this.described.get(ctx);
    if (!req) {
      req = describeRequest(ctx, this.trust);
      this.described.set(ctx, req);
    }
    return req;
  }

  challengeFor(ctx: Context): string {
    // A Basic challenge answering fetch()/XHR makes the browser pop up its own password dialog over the UI.
    const mode = ctx.get('sec-fetch-mode');
    const fromScript = ctx.get('x-requested-with') !== '' || mode === 'cors' || mode === 'same-origin' || mode === 'no-cors';
    return fromScript ? SCRIPT_CHALLENGE : this.challenge;
  }

  async identify(ctx: Context): Promise<Identity | null> {
    // Nothing could identify anyone: skip reading the request (the common case of a trusted LAN install).
    const keysConfigured = this.apiKeys.configured || this.storedKeys?.configured === true;
    if (!keysConfigured && !(this.enabled && this.plugin)) return null;
    const req = this.describe(ctx);
    const client = req.client_address ?? req.peer_address;
    const key = ApiKeyVerifier.presented(req.headers);
    if (key !== undefined && keysConfigured) {
      // A key known by digest costs nothing to check, so it is accepted even from an address locked out by
      // others' guesses (a NAT shared with a browser that mistyped its password, or with an attacker).
      const known = this.apiKeys.recognise(key) ?? this.storedKeys?.recognise(key);
      if (known) return known;
      return this.attempt(ctx, this.keyLimiter, client, async () => (this.apiKeys.hasUnverifiedHashes ? this.gate.run(() => this.apiKeys.verify(key)) : null));
    }
    const plugin = this.plugin;
    if (!this.enabled || !plugin) return null;
    const authenticate = () => this.check(ctx, () => guardPluginCall(plugin.name, 'authenticate', this.checkTimeoutMs, () => plugin.instance.authenticate(req)));
    // Credentials in the request may cost the plugin an scrypt check: count the attempt and take a turn at the gate.
    const identity = req.headers.authorization !== undefined ? await this.attempt(ctx, this.limiter, client, () => this.gate.run(authenticate)) : await authenticate();
    if (identity && !SAFE_METHODS.has(req.method)) this.refuseCrossSite(req, identity);
    return identity;
  }

  roleOf(identity: Identity): Role | undefined {
    return this.grantOf(identity).role;
  }

  grantOf(identity: Identity): Grant {
    // config.yaml's admin is edited in config.yaml only: a stored row of that name (from another auth mode) counts for nothing.
    const profile = this.users?.isConfigUser(identity.name) ? undefined : this.users?.profileOf(identity.name);
    if (profile?.disabled) return { role: undefined, scopes: new Set(), disabled: true };
    const roles = this.rolesOf(identity, profile?.role);
    const scopes = scopesOf(roles, identity.scopes);
    // A config key's `role` is the most it may do, even for a user whose own role grants more.
    const cap = identity.via === 'api-key' && identity.role !== undefined ? scopesOf([identity.role]) : undefined;
    return { role: ROLE_ORDER.find((r) => roles.includes(r)), scopes: cap ? new Set([...scopes].filter((scope) => cap.has(scope))) : scopes, disabled: false };
  }

  /**
   * The roles an identity holds: config.yaml's admin's, else the one an admin set for the user, else the one its
   * credential carries (a local account's, a config API key's), else what `ui.auth.roles` maps its groups to. With no
   * mapping at all, whoever the auth plugin recognises is an admin (a proxy that lets only the owner through).
   */
  private rolesOf(identity: Identity, profileRole: Role | undefined): Role[] {
    // config.yaml's admin is one whatever a stored row of that name says (one left from another auth mode).
    if (this.users?.isConfigUser(identity.name)) return [identity.role ?? 'admin'];
    if (profileRole) return [profileRole];
    if (identity.role) return [identity.role];
    // A stored key of a user without a role of their own: no groups to fall back on.
    if (identity.via === 'api-key') return [];
    if (Object.keys(this.config.roles).length === 0) return ['admin'];
    return identity.groups.flatMap((g) => {
      const role = Object.hasOwn(this.config.roles, g) ? this.config.roles[g] : undefined;
      return role === undefined ? [] : [role];
    });
  }

  async login(req: AuthRequest, credentials: { username: string; password: string }): Promise<LoginResult> {
    const plugin = this.plugin;
    const login = plugin?.instance.login;
    if (!plugin || !login || !this.loginAvailable) throw new UnauthorizedError(this.challenge, `there is no login form in ${this.type} mode`);
    // A login form posted from another site would sign the victim in as the attacker (login CSRF).
    const crossSite = crossSiteReason(req);
    if (crossSite) throw new CrossSiteRequestError(crossSite, this.type);
    const client = req.client_address ?? req.peer_address;
    const result = await this.attempt(undefined, this.limiter, client, () =>
      this.gate.run(() => this.check(undefined, () => guardPluginCall(plugin.name, 'login', this.checkTimeoutMs, () => login.call(plugin.instance, credentials, req)))),
    );
    if (!result) throw new UnauthorizedError(SCRIPT_CHALLENGE, 'wrong username or password');
    return { identity: result.identity, setCookie: sessionCookie(result.session_token, { secure: req.secure, maxAgeSeconds: result.max_age_s }) };
  }

  async logout(req: AuthRequest): Promise<string> {
    const plugin = this.plugin;
    const logout = plugin?.instance.logout;
    if (req.session_token && plugin && logout) {
      const { origin, sameSite } = requestOrigin(req);
      if (!sameSite) throw new CrossSiteRequestError(origin === undefined ? { kind: 'session-without-origin' } : { kind: 'origin', origin }, this.type);
      const token = req.session_token;
      await guardPluginCall(plugin.name, 'logout', PLUGIN_TIMEOUT_MS, () => logout.call(plugin.instance, token));
    }
    return clearedSessionCookie(req.secure);
  }

  async revokeSessions(): Promise<number> {
    const plugin = this.plugin;
    const revoke = plugin?.instance.revokeSessions;
    if (!plugin || !revoke || !this.sessionsRevocable) return 0;
    return guardPluginCall(plugin.name, 'revokeSessions', PLUGIN_TIMEOUT_MS, () => revoke.call(plugin.instance));
  }

  /** One warning a minute while credential checks are refused: a flood must not become a flood of log lines. */
  private warnBusy(): void {
    const now = this.clock.now();
    if (now - this.busyWarnedAt < 60_000) return;
    this.busyWarnedAt = now;
    this.log.warn(this.gate.load, 'refusing password and API key checks: more are waiting than the hashing queue holds (a guessing attack?)');
  }

  /**
   * A credential check whose plugin failed or did not answer in time is the service's trouble, not the client's
   * fault nor a bug: 503 with Retry-After (it was a 500), and the log names the plugin and the cause.
   */
  private async check<T>(ctx: Context | undefined, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err: unknown) {
      if (!(err instanceof PluginError)) throw err;
      this.log.warn({ err, plugin: err.pluginName, operation: err.operation }, 'the auth plugin could not check credentials; answered 503');
      ctx?.set('Retry-After', String(CHECK_RETRY_AFTER_S));
      throw new PluginUnavailableError('credentials could not be checked right now; try again in a moment', { cause: err });
    }
  }

  /**
   * One credential check for `client`: reserved against `limiter` before it runs (429 when the client has no
   * attempt left), recorded as a success or failure by its result (null = wrong). A check the gate refuses
   * (429) or that fails reaches no verdict and counts for nothing.
   */
  private async attempt<T>(ctx: Context | undefined, limiter: FailedLoginLimiter, client: string, check: () => Promise<T | null>): Promise<T | null> {
    const wait = limiter.reserve(client);
    if (wait > 0) {
      ctx?.set('Retry-After', String(wait));
      throw new TooManyRequestsError(wait);
    }
    let result: T | null;
    try {
      result = await check();
    } catch (err: unknown) {
      limiter.release(client);
      if (err instanceof CredentialChecksBusyError) {
        ctx?.set('Retry-After', String(err.retryAfterSeconds));
        this.warnBusy();
      }
      throw err;
    }
    if (result === null) limiter.recordFailure(client);
    else limiter.recordSuccess(client);
    return result;
  }

  /**
   * CSRF: a browser attaches its credentials (our session cookie, cached Basic credentials, the forward-auth
   * proxy's cookie) to requests that other sites start. `refuseCrossSiteWrites` has already refused every
   * request a browser marks as another site's; a session additionally needs a same-site Origin/Referer, since
   * only a browser holds it. Basic and proxy identities without any Origin are scripts and curl.
   */
  private refuseCrossSite(req: AuthRequest, identity: Identity): void {
    if (identity.via === 'api-key') return;
    const crossSite = crossSiteReason(req);
    if (crossSite) throw new CrossSiteRequestError(crossSite, this.type);
    const { origin, sameSite } = requestOrigin(req);
    if (identity.via === 'session' && !sameSite) throw new CrossSiteRequestError(origin === undefined ? { kind: 'session-without-origin' } : { kind: 'origin', origin }, this.type);
  }
}
