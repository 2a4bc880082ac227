import { EventType, Type, type Static } from '@crateflow/sdk';

/** The plugin's config block (`plugins: [{ use: crateflow-sink-ntfy, config: { … } }]`). */
export const NtfyConfig = Type.Object(
  {
    topic_url: Type.String({ format: 'uri', description: 'the ntfy topic that receives one message per event, e.g. https://ntfy.sh/my-music' }),
    access_token: Type.Optional(Type.String({ minLength: 1, description: 'ntfy access token, sent as Authorization: Bearer (write ${NTFY_TOKEN})' })),
    events: Type.Array(EventType, { default: ['download_completed', 'queue_added'], description: 'which events to send' }),
    timeout_ms: Type.Integer({ minimum: 100, maximum: 30000, default: 10000, description: 'deadline of one post to ntfy' }),
  },
  { additionalProperties: false },
);
export type NtfyConfig = Static<typeof NtfyConfig>;
