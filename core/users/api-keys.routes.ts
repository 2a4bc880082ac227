import { Type } from 'typebox';
import { ROLE_SCOPES, type Role } from '@crateflow/sdk';
import { ApiKeyCreated, ApiKeyList, CreateApiKeyBody } from './api-key.schema.js';
import type { ApiKeyConfig } from '../config/app-config.schema.js';
import { ConflictError } from '../errors/conflict-error.js';
import { ValidationError } from '../errors/validation-error.js';
import { route, type RouteSpec } from '../http/route.js';
import type { StoredApiKey, StoredApiKeys } from './stored-api-keys.js';
import type { UserDirectory } from './user-directory.js';

/** API keys (issue #31): each belongs to a user and carries scopes. Config keys are listed, not changed, here. */
export function apiKeyRoutes(deps: { keys: StoredApiKeys; users: UserDirectory; configured: readonly ApiKeyConfig[] }): RouteSpec[] {
  const { keys, users, configured } = deps;
  const roleOf = (name: string): Role | undefined => (users.isConfigUser(name) ? 'admin' : users.profileOf(name)?.role);
  return [
    route({
      method: 'get', path: '/api-keys', tag: 'users', access: 'admin',
      summary: 'Every API key: config.yaml\'s and those made here (never the keys themselves)',
      response: ApiKeyList,
      handle: () => ({
        items: [
          ...configured.map((key, index) => ({
            id: `config-${index}`, name: key.name, ...(key.user === undefined ? {} : { user: key.user }), scopes: key.scopes ?? [...ROLE_SCOPES[key.role]], origin: 'config' as const,
          })),
          ...keys.list().map(storedView),
        ],
      }),
    }),
    route({
      method: 'post', path: '/api-keys', tag: 'users', access: 'admin', status: 201, errors: [507],
      summary: 'Make an API key for a user; the answer shows the key, once',
      body: CreateApiKeyBody,
      response: ApiKeyCreated,
      handle: async ({ body }) => {
        const role = roleOf(body.user);
        if (role === undefined) {
          const known = users.profileOf(body.user) !== undefined;
          throw new ValidationError([{ path: 'body.user', message: known ? `set a role for "${body.user}" first: a key may do at most what its user's role grants` : `there is no user "${body.user}"; add them under Users first` }]);
        }
        const beyond = body.scopes.filter((scope) => !ROLE_SCOPES[role].includes(scope));
        if (beyond.length > 0) throw new ValidationError([{ path: 'body.scopes', message: `${beyond.join(', ')} ${beyond.length === 1 ? 'is' : 'are'} beyond the ${role} role of "${body.user}"` }]);
        const { key, record } = await keys.create(body.user, body.name, body.scopes, () => {
          if (!users.mayOwnKeys(body.user)) throw new ConflictError(`"${body.user}" was deleted, or lost their role, meanwhile; no key was made`, { user: body.user });
        });
        return { key, api_key: storedView(record) };
      },
    }),
    route({
      method: 'delete', path: '/api-keys/:id', tag: 'users', access: 'admin', errors: [404, 409],
      summary: 'Revoke an API key made here',
      params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }) }),
      handle: async ({ params }) => {
        if (params.id.startsWith('config-')) throw new ConflictError('this key is in config.yaml (ui.auth.api_keys); remove it there', { id: params.id });
        await keys.remove(params.id);
      },
    }),
  ];
}

function storedView(key: StoredApiKey) {
  return { id: key.id, name: key.name, user: key.owner, scopes: key.scopes, origin: 'stored' as const, created_at: key.created_at };
}
