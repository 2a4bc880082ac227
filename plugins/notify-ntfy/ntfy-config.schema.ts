import { Type, type Static } from '@crateflow/sdk';

export const NtfyConfig = Type.Object(
  {
    url: Type.String({ default: 'https://ntfy.sh', pattern: '^https?://[^/?#@]+/?$', description: 'the ntfy server (its origin; your own, or https://ntfy.sh)' }),
    // ntfy's topic rule: letters, digits, _ and -, at most 64 (server/server.go, topicRegex).
    topic: Type.String({ pattern: '^[-_A-Za-z0-9]{1,64}$', description: 'the topic your phone subscribes to; on a public server anyone who knows it can read it, so make it long and random' }),
    token: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'an access token (tk_…) for a protected topic; kept out of logs' })),
    priority: Type.Integer({ minimum: 1, maximum: 5, default: 3, description: 'ntfy priority of candidate messages (1 min … 5 max)' }),
    timeout_ms: Type.Integer({ minimum: 1000, maximum: 60_000, default: 10_000, description: 'deadline of each publish' }),
  },
  { additionalProperties: false },
);
export type NtfyConfig = Static<typeof NtfyConfig>;
