import { Type } from 'typebox';
import { route, type RouteSpec } from '../route.js';
import type { RequestAuthenticator } from '../../auth/request-authenticator.js';
import { clearedSessionCookie } from '../../auth/session-cookie.js';

const RevokedSessions = Type.Object(
  { revoked: Type.Integer({ minimum: 0, description: 'how many sessions ended, the caller\'s own included' }) },
  { additionalProperties: false, $id: 'RevokedSessions' },
);

/**
 * `POST /auth/sessions/revoke` (admin): ends every login session at once, for when a password or a laptop
 * is lost. Served only when the auth mode keeps sessions (basic), documented in every mode; in proxy mode the
 * sessions are the forward-auth proxy's to end. API keys and HTTP Basic are not sessions and keep working.
 */
export function authSessionRoutes(deps: { authenticator: RequestAuthenticator }): RouteSpec[] {
  const { authenticator } = deps;
  return [
    route({
      method: 'post', path: '/auth/sessions/revoke', tag: 'auth', access: 'admin',
      onlyInAuthModes: { modes: ['basic'], served: authenticator.sessionsRevocable },
      summary: 'End every login session (admin)',
      description: 'Every browser signed in with the login form must sign in again. The caller\'s own session cookie is cleared too.',
      response: RevokedSessions,
      errors: [401, 403],
      handle: async ({ request, setHeader, log, identity }) => {
        const revoked = await authenticator.revokeSessions();
        log.info({ revoked, by: identity?.name }, 'every login session was revoked');
        setHeader('Set-Cookie', clearedSessionCookie(request.secure));
        setHeader('Cache-Control', 'no-store');
        return { revoked };
      },
    }),
  ];
}
