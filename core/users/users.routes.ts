import { Type } from 'typebox';
import type { Role } from '@crateflow/sdk';
import { route, type RouteSpec } from '../http/route.js';
import type { NotificationEntry } from '../config/notification-entry.schema.js';
import { checkNotifyTarget } from './check-notify-target.js';
import type { StoredApiKeys } from './stored-api-keys.js';
import type { UserDirectory } from './user-directory.js';
import { CreateUserBody, UpdateUserBody, User, UserList, UserName, type UserRecord } from './user.schema.js';

/** What applies to a user's requests (core/requests implements it), for the list's `effective` settings. */
export interface RulesForUsers {
  autoApproves(name: string, role: Role | undefined): boolean;
  quotaOf(name: string): User['quota'] | undefined;
}

/** Users an admin manages (issue #31): local accounts, forward-auth users' profiles, and config.yaml's admin. */
export function userRoutes(deps: { users: UserDirectory; keys: StoredApiKeys; rules: RulesForUsers; channels: readonly NotificationEntry[] }): RouteSpec[] {
  const { users, keys, rules, channels } = deps;
  const view = (user: UserRecord): User => userView(user, rules);
  return [
    route({
      method: 'get', path: '/users', tag: 'users', access: 'admin',
      summary: 'Every user: config.yaml\'s admin, local accounts, and proxy users with settings of their own',
      response: UserList,
      handle: () => ({ items: [...configAdmin(users, rules), ...users.list().map(view)] }),
    }),
    route({
      method: 'post', path: '/users', tag: 'users', access: 'admin', status: 201, errors: [409, 507],
      summary: 'Add a local account (with a password) or settings for a forward-auth user (without)',
      description: 'A local account without a `role` is a requester. Passwords are stored as scrypt hashes.',
      body: CreateUserBody,
      response: User,
      handle: async ({ body }) => {
        checkNotifyTarget(body.notify, channels);
        return view(await users.create(body));
      },
    }),
    route({
      method: 'patch', path: '/users/:name', tag: 'users', access: 'admin', errors: [404, 409],
      summary: 'Change a user: password (reset), role, disabled, auto_approve, quota, notify (null clears a setting)',
      description: 'A new password, or disabling, ends the user\'s sessions. An admin cannot disable themselves.',
      params: Type.Object({ name: UserName }),
      body: UpdateUserBody,
      response: User,
      handle: async ({ params, body, identity }) => {
        checkNotifyTarget(body.notify, channels);
        return view(await users.update(params.name, body, identity?.name));
      },
    }),
    route({
      method: 'delete', path: '/users/:name', tag: 'users', access: 'admin', errors: [404, 409],
      summary: 'Delete a user and the API keys made for them',
      params: Type.Object({ name: UserName }),
      handle: async ({ params, identity }) => {
        await users.remove(params.name, identity?.name, (afterCommit) => keys.removeOwnedBy(params.name, afterCommit));
      },
    }),
  ];
}

function userView(user: UserRecord, rules: RulesForUsers): User {
  const quota = rules.quotaOf(user.name);
  return {
    name: user.name,
    ...(user.display_name === undefined ? {} : { display_name: user.display_name }),
    role: user.role ?? null,
    origin: user.password_hash === undefined ? 'proxy' : 'local',
    has_password: user.password_hash !== undefined,
    disabled: user.disabled === true,
    auto_approve: user.auto_approve ?? null,
    quota: user.quota ?? null,
    notify: user.notify ?? null,
    effective: { auto_approve: rules.autoApproves(user.name, user.role), quota: quota ?? null },
    created_at: user.created_at,
    updated_at: user.updated_at,
  };
}

/** config.yaml's basic-auth user, listed first: an admin whose settings live in the file. */
function configAdmin(users: UserDirectory, rules: RulesForUsers): User[] {
  const name = users.configUser;
  if (name === undefined) return [];
  const quota = rules.quotaOf(name);
  return [{
    name, role: 'admin', origin: 'config', has_password: true, disabled: false, auto_approve: null, quota: null, notify: null,
    effective: { auto_approve: rules.autoApproves(name, 'admin'), quota: quota ?? null },
  }];
}
