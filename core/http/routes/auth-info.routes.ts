import type { Identity } from '@crateflow/sdk';
import { route, type RouteSpec } from '../route.js';
import type { RequestAuthenticator } from '../../auth/request-authenticator.js';
import { AuthInfo } from './auth.schema.js';
import { SCOPE_ORDER } from '../../auth/access.js';

/** The public description of who a request is: no secrets, no session token. */
export function authInfoOf(authenticator: RequestAuthenticator, identity: Identity | null, shown: { logoutUrl?: string; notice?: string } = {}) {
  const grant = identity ? authenticator.grantOf(identity) : undefined;
  const role = grant?.role;
  return {
    ...(shown.logoutUrl !== undefined ? { logout_url: shown.logoutUrl } : {}),
    ...(shown.notice !== undefined ? { notice: shown.notice } : {}),
    enabled: authenticator.enabled,
    type: authenticator.type,
    authenticated: identity !== null,
    user: identity
      ? {
          name: identity.name,
          ...(identity.display_name ? { display_name: identity.display_name } : {}),
          ...(identity.email ? { email: identity.email } : {}),
          groups: identity.groups,
          ...(role ? { role } : {}),
          scopes: SCOPE_ORDER.filter((scope) => grant?.scopes.has(scope)),
          ...(grant?.disabled ? { disabled: true } : {}),
        }
      : null,
  };
}

/** `GET /auth/info`: public; who this request is, and how the server authenticates. Never anything secret. */
export function authInfoRoutes(deps: { authenticator: RequestAuthenticator; logoutUrl?: string; notice?: string }): RouteSpec[] {
  return [
    route({
      method: 'get', path: '/auth/info', tag: 'auth', access: 'public', identifyOptional: true,
      summary: 'Authentication mode and the identity of this request',
      response: AuthInfo,
      handle: ({ identity }) => authInfoOf(deps.authenticator, identity, deps),
    }),
  ];
}
