import { clockSleep, createHttpClient, definePlugin, PLUGIN_API_VERSION, RetryLaterError, type Notification } from '@crateflow/sdk';
import { TelegramApi, TelegramError } from './telegram-api.js';
import { TelegramConfig } from './telegram-config.schema.js';
import { telegramPost } from './telegram-message.js';
import { handleButtonPress, type CallbackQuery } from './button-press.js';

interface Update {
  update_id: number;
  callback_query?: CallbackQuery;
}

const OFFSET_KEY = 'updates/offset';
const SENT_PREFIX = 'sent/';
/** How long a chat's receipt of a message is remembered: far past the server's last retry of it. */
const SENT_KEPT_MS = 7 * 24 * 3600_000;
/** What Telegram answers when it cannot fetch or use a cover (Client.cpp; TDLib's photo checks). */
const COVER_REFUSED = /wrong file identifier|HTTP URL|web page content|IMAGE_PROCESS_FAILED|PHOTO_/i;

/**
 * Candidates in Telegram chats, with Approve and Reject buttons that decide in place: the bot long-polls
 * `getUpdates` for button presses (no public address needed), answers each press, and edits the message to say what
 * was decided and by whom. Only the configured chats may decide. Its requests obey `webhooks_policy`.
 */
export default definePlugin({
  manifest: { name: 'notify-telegram', kind: 'notifier', apiVersion: PLUGIN_API_VERSION, configSchema: TelegramConfig, version: '1.0.0' },
  create: (ctx) => {
    const { config, log, clock, storage } = ctx;
    const http = createHttpClient({ userAgent: `crateflow/${ctx.serverVersion} (notify-telegram)`, defaultTimeoutMs: config.timeout_ms, ...(ctx.refuseTargetAddress ? { refuseAddress: ctx.refuseTargetAddress } : {}) });
    const api = new TelegramApi(http, config.api_url, config.bot_token, config.timeout_ms);
    const polling = new AbortController();
    const stopPolling = () => polling.abort();
    ctx.signal.addEventListener('abort', stopPolling, { once: true });
    let loop: Promise<void> | undefined;

    async function sendTo(chatId: number, note: Notification): Promise<void> {
      const post = telegramPost(note, chatId);
      try {
        await api.call(post.method, post.params, { signal: ctx.signal });
      } catch (err: unknown) {
        // Telegram fetches the cover itself; one it cannot get must not cost the message: send it as text.
        if (post.method === 'sendPhoto' && err instanceof TelegramError && err.status === 400 && COVER_REFUSED.test(err.description)) {
          log.warn({ chat: chatId, error: err.description }, 'Telegram could not use the cover; sending the message without it');
          const text = telegramPost({ ...note, items: note.items.map(({ cover_url: _cover, ...item }) => item) }, chatId);
          await api.call(text.method, text.params, { signal: ctx.signal }).catch((fallback: unknown) => {
            throw retryable(fallback);
          });
          return;
        }
        throw retryable(err);
      }
    }

    async function forgetOldSends(): Promise<void> {
      const cutoff = clock.now() - SENT_KEPT_MS;
      const old = [...storage.entries<number>(SENT_PREFIX)].filter(([, at]) => typeof at !== 'number' || at < cutoff).map(([key]) => key);
      for (const key of old) await storage.delete(key);
    }

    async function poll(): Promise<void> {
      let failures = 0;
      while (!polling.signal.aborted) {
        const stored = storage.get(OFFSET_KEY);
        const offset = typeof stored === 'number' ? stored : 0;
        try {
          const updates = await api.call<Update[]>('getUpdates', { offset, timeout: config.poll_timeout_s, allowed_updates: ['callback_query'] }, { signal: polling.signal, timeoutMs: (config.poll_timeout_s + 10) * 1000 });
          failures = 0;
          for (const update of updates) {
            if (update.callback_query) {
              await handleButtonPress(update.callback_query, { api, config, log, decisions: ctx.decisionLinks, signal: polling.signal }).catch((err: unknown) => {
                // One press that cannot be handled must not hold up every later one: it is logged and passed over.
                log.error({ error: err instanceof Error ? err.message : String(err) }, 'a Telegram button press could not be handled');
              });
            }
            // Confirmed after it was handled: a crash in between hands the press over again, and deciding twice
            // with one link is refused anyway.
            await storage.set(OFFSET_KEY, update.update_id + 1);
          }
        } catch (err: unknown) {
          if (polling.signal.aborted) return;
          failures++;
          const wait = waitAfter(err, failures);
          log.warn({ error: err instanceof Error ? err.message : String(err), retry_in_ms: wait }, 'Telegram getUpdates failed; polling again later');
          await clockSleep(clock, wait, polling.signal);
        }
      }
    }

    // A message for one person goes to their own chat (sdk 1.6); the others to every configured chat.
    const chatsFor = (note: Notification): readonly number[] => {
      if (note.recipient === undefined) return config.chat_ids;
      // At most 15 digits: a longer number would be rounded by Number() and could name another chat.
      if (!/^-?[0-9]{1,15}$/.test(note.recipient)) throw new Error(`"${note.recipient.slice(0, 80)}" is not a Telegram chat id (a number)`);
      return [Number(note.recipient)];
    };

    return {
      async send(note: Notification) {
        await forgetOldSends();
        // Every chat is tried. One that got the message is remembered, so a retry (or an attempt the server gave up
        // waiting for) does not send it there again; one that refuses the bot for good is logged and passed over.
        let retry: unknown;
        let refused: unknown;
        let delivered = 0;
        for (const chatId of chatsFor(note)) {
          const key = `${SENT_PREFIX}${note.id}/${chatId}`;
          if (storage.get(key) !== undefined) continue;
          try {
            await sendTo(chatId, note);
            delivered++;
          } catch (err: unknown) {
            if (err instanceof RetryLaterError) {
              retry ??= err;
              continue;
            }
            log.error({ chat: chatId, error: err instanceof Error ? err.message : String(err) }, 'Telegram refused the message for this chat; the other chats still get it');
            refused ??= err;
          }
          await storage.set(key, clock.now());
        }
        if (retry) throw retry;
        // Refused everywhere (a wrong token, say): a failure the operator sees in the plugin's status.
        if (refused && delivered === 0) throw refused;
      },
      async start() {
        // Without links there are no buttons to wait for, and getUpdates is left to whatever else uses the bot.
        if (!ctx.decisionLinks) {
          log.warn('server.public_url is not set: messages have no Approve and Reject buttons, and button presses are not fetched');
          return;
        }
        loop = poll().catch((err: unknown) => log.error({ error: err instanceof Error ? err.message : String(err) }, 'Telegram polling stopped'));
      },
      async stop() {
        stopPolling();
        await loop;
        await http.close();
      },
    };
  },
});

/** A Bot API refusal as the notifier contract wants it: 429 and server errors retry later, the rest are errors. */
function retryable(err: unknown): unknown {
  if (err instanceof TelegramError && (err.status === 429 || err.status >= 500)) {
    return new RetryLaterError(err.message, err.retryAfterS === undefined ? {} : { retryAfterMs: err.retryAfterS * 1000 });
  }
  if (err instanceof TelegramError && (err.status === 401 || err.status === 403 || err.description.includes('chat not found'))) {
    return new Error(`${err.message} (check notifications[].bot_token and chat_ids; the bot must have been started in each chat)`);
  }
  return err;
}

/**
 * How long to wait before the next getUpdates after a failure: what a 429 asks; 30 s on a 409 (a webhook is set,
 * or another process polls with this token: both need a person, and hammering helps neither); otherwise doubling
 * from one second to a minute.
 */
function waitAfter(err: unknown, failures: number): number {
  if (err instanceof TelegramError && err.retryAfterS !== undefined) return err.retryAfterS * 1000;
  if (err instanceof TelegramError && err.status === 409) return 30_000;
  if (err instanceof TelegramError && err.status === 401) return 300_000;
  return Math.min(60_000, 1000 * 2 ** Math.min(6, failures - 1));
}

