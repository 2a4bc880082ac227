import { Type, type Static } from 'typebox';
import { Scope } from '@crateflow/sdk';
import { printableText } from '../schema/printable-text.js';
import { UserName } from './user.schema.js';

/** An API key as listed: from config.yaml or made through the API, never the key itself. */
export const ApiKeyView = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    user: Type.Optional(Type.String({ description: 'the user the key acts for (absent: a config key acting under its own name)' })),
    scopes: Type.Array(Scope),
    origin: Type.Union([Type.Literal('config'), Type.Literal('stored')], { description: 'config: from ui.auth.api_keys (change it there); stored: made here' }),
    created_at: Type.Optional(Type.String()),
  },
  { additionalProperties: false, $id: 'ApiKey' },
);
export type ApiKeyView = Static<typeof ApiKeyView>;

export const ApiKeyList = Type.Object({ items: Type.Array(ApiKeyView) }, { $id: 'ApiKeyList' });
export type ApiKeyList = Static<typeof ApiKeyList>;

export const CreateApiKeyBody = Type.Object(
  {
    name: printableText('what the key is for, e.g. node-red or phone shortcut', 100),
    user: UserName,
    scopes: Type.Array(Scope, { minItems: 1, uniqueItems: true, description: 'read, request, decide, admin: at most what the user\'s role grants' }),
  },
  { additionalProperties: false, $id: 'CreateApiKeyBody' },
);
export type CreateApiKeyBody = Static<typeof CreateApiKeyBody>;

/** `POST /api-keys`: the key, shown this once, and the key as listed. */
export const ApiKeyCreated = Type.Object(
  { key: Type.String({ description: 'send as Authorization: Bearer KEY or X-API-Key: KEY; it is not shown again' }), api_key: ApiKeyView },
  { $id: 'ApiKeyCreated' },
);
export type ApiKeyCreated = Static<typeof ApiKeyCreated>;
