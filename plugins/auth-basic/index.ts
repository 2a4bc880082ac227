import { definePlugin, isSecretHash, PLUGIN_API_VERSION, Type, type AuthRequest, type ConfigProblem, type Identity } from '@crateflow/sdk';
import { basicCredentials } from './basic-credentials.js';
import { CredentialCheck } from './credential-check.js';
import { credentialsChanged, credentialStamp } from './credential-stamp.js';
import { SessionStore } from './session-store.js';

const Config = Type.Object(
  {
    username: Type.String({ minLength: 1, description: 'the first admin; the other users are added in the UI (Users)' }),
    password: Type.Optional(Type.String({ minLength: 1, description: 'the password in plain text (logs a warning at startup; prefer password_hash)' })),
    password_hash: Type.Optional(Type.String({ pattern: '^\\$scrypt\\$', description: 'scrypt PHC hash of the password, as printed by crateflow hash-password' })),
    display_name: Type.Optional(Type.String({ minLength: 1, description: 'shown in the UI instead of the username' })),
    session_idle_minutes: Type.Integer({ minimum: 1, maximum: 525_600, default: 1440, description: 'a session unused for this many minutes ends' }),
    session_max_days: Type.Integer({ minimum: 1, maximum: 365, default: 30, description: 'a session ends this many days after login, however busy' }),
  },
  { additionalProperties: false },
);

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/**
 * `ui.auth.type: basic`: one account from config. Browsers sign in through `POST /api/v1/auth/login` and get
 * a session cookie (sessions are kept in plugin storage, so they survive a restart); API clients may send
 * HTTP Basic on every request instead.
 */
export default definePlugin({
  manifest: { name: 'auth-basic', kind: 'auth', apiVersion: PLUGIN_API_VERSION, configSchema: Config, version: '1.0.0' },
  // Reported with every other config problem before start-up, in the same `path: message` form.
  checkConfig(config) {
    const problems: ConfigProblem[] = [];
    if ((config.password === undefined) === (config.password_hash === undefined)) {
      problems.push({ path: '', message: 'set exactly one of password and password_hash' });
    }
    if (config.password_hash !== undefined && !isSecretHash(config.password_hash)) {
      problems.push({ path: 'password_hash', message: 'is not a password hash; make one with npm run hash-password' });
    }
    return problems;
  },
  create({ config, log, storage, clock, accounts }) {
    if (config.password !== undefined) {
      log.warn('ui.auth.password is written in plain text; store a hash instead (crateflow hash-password → ui.auth.password_hash)');
    }
    const credentials = new CredentialCheck(config);
    const sessions = new SessionStore(storage, clock, { idleMs: config.session_idle_minutes * MINUTE_MS, maxAgeMs: config.session_max_days * DAY_MS });
    const identity = (via: Identity['via']): Identity => ({
      name: config.username,
      ...(config.display_name ? { display_name: config.display_name } : {}),
      groups: [],
      role: 'admin',
      via,
    });

    // config.yaml's user first, then the local accounts an admin added (sdk 1.6; older servers have none). A wrong
    // password costs the same whatever the name: config's check runs for every name (its own cost does not depend on
    // the name), and the local accounts' scrypt check runs for every name it did not match, config's own included.
    const check = async (username: string, password: string, via: Identity['via']): Promise<{ identity: Identity; stamp?: string } | null> => {
      if (await credentials.matches(username, password)) return { identity: identity(via) };
      return (await accounts?.check(username, password, via)) ?? null;
    };

    return {
      type: 'basic',
      challenge: 'Basic realm="crateflow", charset="UTF-8"',
      async start() {
        // A start with other credentials than the sessions were signed in with ends them all.
        if (await credentialsChanged(await credentialStamp(config, storage), storage)) {
          const ended = await sessions.endAll();
          if (ended > 0) log.info({ ended }, 'the credentials in ui.auth changed: every session has ended');
        }
        await sessions.sweep();
      },
      async authenticate(req: AuthRequest): Promise<Identity | null> {
        const basic = basicCredentials(req.headers.authorization);
        if (basic) return (await check(basic.username, basic.password, 'basic'))?.identity ?? null;
        if (!req.session_token) return null;
        const session = await sessions.user(req.session_token);
        if (!session) return null;
        if (session.user === config.username) return identity('session');
        // A local account's session ends when the account is disabled, deleted, or its password set since sign-in.
        return session.stamp === undefined ? null : (accounts?.identityOf(session.user, session.stamp, 'session') ?? null);
      },
      async login({ username, password }, req) {
        const signedIn = await check(username, password, 'session');
        if (!signedIn) {
          log.info({ client: req.client_address ?? req.peer_address }, 'failed login');
          return null;
        }
        const sessionToken = await sessions.create(signedIn.identity.name, signedIn.stamp);
        return { session_token: sessionToken, identity: signedIn.identity, max_age_s: config.session_max_days * 86_400 };
      },
      async logout(sessionToken) {
        await sessions.end(sessionToken);
      },
      async revokeSessions() {
        return sessions.endAll();
      },
    };
  },
});
