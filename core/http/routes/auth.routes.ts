import { route, type RouteSpec } from '../route.js';
import type { RequestAuthenticator } from '../../auth/request-authenticator.js';
import { CHECK_RETRY_AFTER_S } from '../../auth/default-authenticator.js';
import { CredentialChecksBusyError } from '../../errors/credential-checks-busy-error.js';
import { PluginUnavailableError } from '../../errors/plugin-unavailable-error.js';
import { TooManyRequestsError } from '../../errors/too-many-requests-error.js';
import { authInfoOf } from './auth-info.routes.js';
import { AuthInfo, LoginBody } from './auth.schema.js';

/**
 * `POST /auth/login` and `POST /auth/logout`, served only when the auth mode has a login form (basic) and
 * documented in every mode. Login sets the `crateflow_session` cookie; failed logins are rate-limited per client
 * address (429 with `Retry-After`). Logout ends the session and clears the cookie; it succeeds without a session too.
 */
export function authRoutes(deps: { authenticator: RequestAuthenticator }): RouteSpec[] {
  const { authenticator } = deps;
  const onlyInAuthModes = { modes: ['basic'], served: authenticator.loginAvailable };
  return [
    route({
      method: 'post', path: '/auth/login', tag: 'auth', access: 'public', onlyInAuthModes,
      summary: 'Sign in with username and password; sets the session cookie',
      description: 'The login form of the web UI. Scripts need no session: they send an API key (or HTTP Basic in basic mode).',
      body: LoginBody,
      response: AuthInfo,
      errors: [400, 401, 403, 415, 429, 503],
      handle: async ({ body, request, setHeader }) => {
        try {
          const { identity, setCookie } = await authenticator.login(request, body);
          setHeader('Set-Cookie', setCookie);
          setHeader('Cache-Control', 'no-store');
          return authInfoOf(authenticator, identity);
        } catch (err: unknown) {
          if (err instanceof TooManyRequestsError || err instanceof CredentialChecksBusyError) setHeader('Retry-After', String(err.retryAfterSeconds));
          if (err instanceof PluginUnavailableError) setHeader('Retry-After', String(CHECK_RETRY_AFTER_S));
          throw err;
        }
      },
    }),
    route({
      method: 'post', path: '/auth/logout', tag: 'auth', access: 'public', onlyInAuthModes,
      summary: 'End the session and clear the session cookie',
      errors: [403],
      handle: async ({ request, setHeader }) => {
        setHeader('Set-Cookie', await authenticator.logout(request));
        return undefined;
      },
    }),
  ];
}
