import { Type, type Static } from 'typebox';
import { Role } from '@crateflow/sdk';
import { RequestQuota } from '../config/app-config.schema.js';
import { printableText } from '../schema/printable-text.js';

/** A user's name: what they sign in with, or the `Remote-User` the forward-auth proxy sends. */
export const UserName = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$', description: 'letters, digits and . _ @ + - (the sign-in name, or the Remote-User a proxy sends)' });

const Password = Type.String({ minLength: 8, maxLength: 1024, description: 'at least 8 characters; stored as an scrypt hash' });

/** Where a requester is told that a request is in the library or was declined. */
export const NotifyTarget = Type.Object(
  {
    channel: Type.String({ minLength: 1, maxLength: 100, description: 'the name of a `notifications:` entry' }),
    to: Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\s]+$', description: 'who on that channel: an ntfy topic, or a Telegram chat id' }),
  },
  { additionalProperties: false },
);

/** The stored account (users table): what an admin set, never shown whole (the hash stays inside). */
export interface UserRecord {
  name: string;
  display_name?: string;
  role?: Role;
  password_hash?: string;
  disabled?: boolean;
  auto_approve?: boolean;
  quota?: Static<typeof RequestQuota>;
  notify?: Static<typeof NotifyTarget>;
  /** When the password was last set (ms): sessions signed in before it end. */
  credentials_changed_at: number;
  created_at: string;
  updated_at: string;
}

export const User = Type.Object(
  {
    name: Type.String(),
    display_name: Type.Optional(Type.String()),
    role: Type.Union([Role, Type.Null()], { description: 'the role set for this user; null: from the groups the proxy sends (ui.auth.roles)' }),
    origin: Type.Union([Type.Literal('config'), Type.Literal('local'), Type.Literal('proxy')], {
      description: 'config: the basic-auth user of config.yaml (an admin, not editable here); local: an account with a password; proxy: a forward-auth user\'s profile',
    }),
    has_password: Type.Boolean(),
    disabled: Type.Boolean(),
    auto_approve: Type.Union([Type.Boolean(), Type.Null()], { description: 'null: as `requests.auto_approve` says' }),
    quota: Type.Union([RequestQuota, Type.Null()], { description: 'null: `requests.quota`' }),
    notify: Type.Union([NotifyTarget, Type.Null()]),
    effective: Type.Object({
      auto_approve: Type.Boolean({ description: 'whether this user\'s requests are approved without an admin (up to the quota)' }),
      quota: Type.Union([RequestQuota, Type.Null()], { description: 'null: no quota' }),
    }),
    created_at: Type.Optional(Type.String()),
    updated_at: Type.Optional(Type.String()),
  },
  { additionalProperties: false, $id: 'User' },
);
export type User = Static<typeof User>;

export const UserList = Type.Object({ items: Type.Array(User) }, { $id: 'UserList' });
export type UserList = Static<typeof UserList>;

export const CreateUserBody = Type.Object(
  {
    name: UserName,
    password: Type.Optional(Password),
    role: Type.Optional(Role),
    display_name: Type.Optional(printableText('shown instead of the name', 100)),
    auto_approve: Type.Optional(Type.Boolean()),
    quota: Type.Optional(RequestQuota),
    notify: Type.Optional(NotifyTarget),
  },
  { additionalProperties: false, $id: 'CreateUserBody' },
);
export type CreateUserBody = Static<typeof CreateUserBody>;

export const UpdateUserBody = Type.Object(
  {
    password: Type.Optional(Password),
    role: Type.Optional(Type.Union([Role, Type.Null()])),
    display_name: Type.Optional(Type.Union([printableText('shown instead of the name', 100), Type.Null()])),
    disabled: Type.Optional(Type.Boolean()),
    auto_approve: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    quota: Type.Optional(Type.Union([RequestQuota, Type.Null()])),
    notify: Type.Optional(Type.Union([NotifyTarget, Type.Null()])),
  },
  { additionalProperties: false, minProperties: 1, $id: 'UpdateUserBody' },
);
export type UpdateUserBody = Static<typeof UpdateUserBody>;

