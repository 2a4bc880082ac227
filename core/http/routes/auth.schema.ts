import { Type } from 'typebox';
import { Scope } from '@crateflow/sdk';

const AuthUser = Type.Object({
  name: Type.String(),
  display_name: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  groups: Type.Array(Type.String()),
  role: Type.Optional(Type.String({ description: 'admin, approver, requester or viewer (absent: none, so the user may do nothing)' })),
  scopes: Type.Array(Scope, { description: 'what the user may do: read, request, decide, admin' }),
  disabled: Type.Optional(Type.Boolean({ description: 'true: an admin disabled the account' })),
});

/** `GET /auth/info` and `POST /auth/login`: how the server authenticates, and who the request is. */
export const AuthInfo = Type.Object(
  {
    enabled: Type.Boolean(),
    type: Type.String({ description: 'disabled, basic or proxy' }),
    authenticated: Type.Boolean(),
    user: Type.Union([Type.Null(), AuthUser]),
    logout_url: Type.Optional(Type.String({ description: 'proxy mode: where the UI\'s "Sign out" link leads (ui.auth.logout_url)' })),
    notice: Type.Optional(Type.String({ description: 'ui.notice: a line the UI shows at the top of every page' })),
  },
  { $id: 'AuthInfo' },
);

/** `POST /auth/login`. */
export const LoginBody = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 256 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false, $id: 'LoginBody' },
);
