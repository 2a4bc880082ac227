import { Type, type Static } from '@crateflow/sdk';

export const TelegramConfig = Type.Object(
  {
    // BotFather's token: the bot's numeric id, a colon, and 35 characters (Bot API docs, "Authorizing your bot").
    bot_token: Type.String({ pattern: '^[0-9]{1,20}:[A-Za-z0-9_-]{30,64}$', description: "the bot's token from @BotFather; kept out of logs" }),
    chat_ids: Type.Array(Type.Integer({ minimum: -(2 ** 52), maximum: 2 ** 52 }), {
      minItems: 1,
      maxItems: 20,
      uniqueItems: true,
      description: 'the chats the bot writes to, and the only ones whose buttons decide (your user id, or a group id, negative)',
    }),
    api_url: Type.String({ default: 'https://api.telegram.org', pattern: '^https?://[^/?#@]+/?$', description: 'the Bot API server (its origin): the public one, or your own telegram-bot-api' }),
    poll_timeout_s: Type.Integer({ minimum: 1, maximum: 50, default: 30, description: 'how long one getUpdates request waits for a button press (long polling)' }),
    timeout_ms: Type.Integer({ minimum: 1000, maximum: 60_000, default: 10_000, description: 'deadline of each request other than the long poll' }),
  },
  { additionalProperties: false },
);
export type TelegramConfig = Static<typeof TelegramConfig>;
