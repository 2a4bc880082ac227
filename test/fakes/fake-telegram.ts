import { randomBytes, randomInt } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { isJsonObject, parseJsonBody } from './is-json-object.js';
import { listenOnLoopback } from './listen-on-loopback.js';
import { ArrivalWaiters } from './arrival-waiters.js';
import { recordRequest, type RecordedRequest } from './recorded-request.js';
import { replyText } from './reply.js';

/**
 * A real HTTP fake of the Telegram Bot API (https://core.telegram.org/bots/api), quirks on. "Source" below is the
 * official Bot API server github.com/tdlib/telegram-bot-api at 01a3679c (2026-05-07), files under telegram-bot-api/,
 * and the TDLib it runs on, github.com/tdlib/td at 022d6020 (2026-07-17), files under td/telegram/, tdnet/, tdutils/,
 * tddb/. Where api.telegram.org answers differently from the self-hosted server, the fake does what the cloud does and
 * says which issue thread shows it. Limits the Telegram servers enforce behind TDLib (callback data size, photo
 * downloads) are named by the error code they send. Anything the fake does not model (reply keyboards, Markdown,
 * inline messages, other button types) throws, so the listener answers 500 and the test fails loudly rather than
 * passing against behaviour the fake made up.
 */
export interface FakeTelegramOptions {
  /** Chats the bot can write to: to every other chat_id the answer is "chat not found". Defaults to `[DEFAULT_CHAT_ID]`. */
  readonly chats?: readonly number[];
  /**
   * Hosts Telegram's servers manage to download a photo URL from; any other host fails. Without it every host loads
   * except loopback and private addresses, which Telegram's servers can never reach.
   */
  readonly photoHosts?: readonly string[];
  /** Which of the download failures Telegram reports (see PHOTO_URL_ERRORS); the first by default. */
  readonly photoUrlError?: PhotoUrlError;
  /** How long a callback query stays answerable (Telegram does not document it; the default is the fake's guess). */
  readonly callbackQueryTimeoutMs?: number;
}

export interface InlineKeyboardButton {
  readonly text: string;
  readonly url?: string;
  readonly callback_data?: string;
}

export interface InlineKeyboardMarkup {
  readonly inline_keyboard: readonly (readonly InlineKeyboardButton[])[];
}

/** A MessageEntity as the Bot API returns it; offsets and lengths count UTF-16 code units. */
export interface MessageEntity {
  readonly type: string;
  readonly offset: number;
  readonly length: number;
  readonly url?: string;
  readonly language?: string;
  readonly custom_emoji_id?: string;
  readonly user?: { readonly id: number; readonly is_bot: boolean; readonly first_name: string };
}

/** Text (or a caption) the way the chat shows it: markup parsed into entities, then trimmed. */
export interface FormattedText {
  readonly text: string;
  readonly entities: readonly MessageEntity[];
}

/** One message the bot sent, in its current state (edits applied). */
export interface SentMessage {
  readonly message_id: number;
  readonly chat_id: number;
  readonly kind: 'text' | 'photo';
  /** The `text` parameter exactly as sent (markup included); `formatted` is what the chat shows. */
  text?: string;
  caption?: string;
  /** The photo URL as sent, or `upload:<file name>` for a multipart upload. */
  readonly photo?: string;
  parse_mode?: string;
  /** The keyboard as Telegram keeps it: empty-text buttons and empty rows dropped, absent when none is left. */
  reply_markup?: InlineKeyboardMarkup;
  formatted: FormattedText;
  link_preview_disabled: boolean;
  edits: number;
  readonly date: number;
  edit_date?: number;
  /** The request that sent the message (edits do not replace it; see FakeTelegram.received). */
  readonly raw: RecordedRequest;
}

export interface TelegramUser {
  readonly id: number;
  readonly username?: string;
  readonly first_name: string;
}

export interface CallbackAnswer {
  readonly text?: string;
  readonly show_alert?: boolean;
}

export interface FakeTelegram {
  /** `http://127.0.0.1:<port>`: the client calls `${apiUrl}/bot${token}/<method>`. */
  readonly apiUrl: string;
  /** A realistic token: the bot's user id, a colon and 35 characters. */
  readonly token: string;
  readonly chats: readonly number[];
  /** Current state of each message, in the order sent. */
  readonly sent: SentMessage[];
  /** Every request, refused ones included. */
  readonly received: readonly RecordedRequest[];
  /** Resolves with the first `count` messages once that many were sent; rejects after `timeoutMs` (default 60 s). */
  waitForMessages(count: number, timeoutMs?: number): Promise<SentMessage[]>;
  /**
   * A user pressing an inline button: queues a callback_query update for the next getUpdates and returns its id.
   * `chatId` is the chat the update's message reports (defaults to the chat it was sent to). Throws when the message
   * has no such button, as a user cannot press one that is not there.
   */
  press(message: SentMessage, callbackData: string, from: TelegramUser, chatId?: number): string;
  /** Answers given to callback queries, by id. */
  readonly answers: Map<string, CallbackAnswer>;
  waitForAnswer(callbackQueryId: string, timeoutMs?: number): Promise<CallbackAnswer>;
  /** Sets (or with `undefined` deletes) the webhook without the checks the setWebhook method makes. */
  setWebhook(url: string | undefined): void;
  /** The next `count` requests (any method) get Telegram's 429 with `retry_after` = `retryAfterSeconds`. */
  floodNext(count: number, retryAfterSeconds: number): void;
  close(): Promise<void>;
}

export const DEFAULT_CHAT_ID = 424242424;

/** Client.cpp fail_query_with_error maps the server's MEDIA_EMPTY, WEBPAGE_CURL_FAILED and WEBPAGE_MEDIA_EMPTY to these. */
export const PHOTO_URL_ERRORS = [
  'Wrong file identifier/HTTP URL specified',
  'Failed to get HTTP URL content',
  'Wrong type of the web page content',
] as const;
export type PhotoUrlError = (typeof PHOTO_URL_ERRORS)[number];

const BOT_FIRST_NAME = 'Crateflow';
const BOT_USERNAME = 'crateflow_test_bot';
/** Client.cpp fail_query_with_error, MESSAGE_NOT_MODIFIED. */
const NOT_MODIFIED =
  'message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message';
const WEBHOOK_CONFLICT =
  'Conflict: can\'t use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first';
const OTHER_GETUPDATES_CONFLICT =
  'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running';
const SET_WEBHOOK_CONFLICT = 'Conflict: terminated by setWebhook request';
const TEXT_LENGTH_MAX = 4096; // td OptionManager.cpp message_text_length_max, checked in MessageContent.cpp
const CAPTION_LENGTH_MAX = 1024; // td OptionManager.cpp message_caption_length_max
const RAW_TEXT_BYTES_MAX = 1 << 15; // Client.cpp get_formatted_text: "Text is too long" before any parsing
const CALLBACK_DATA_BYTES_MAX = 64; // docs, InlineKeyboardButton.callback_data "1-64 bytes"
const CALLBACK_ANSWER_LENGTH_MAX = 200; // docs, answerCallbackQuery.text "0-200 characters"
const LONG_POLL_MAX_TIMEOUT_S = 50; // Client.h LONG_POLL_MAX_TIMEOUT
const LONG_POLL_WAIT_AFTER_MS = 1; // Client.h LONG_POLL_WAIT_AFTER: an update ends a waiting poll after 1 ms
const CONFLICT_SPACING_MS = 3_000; // Client.cpp fail_query_conflict: at most one 409 per 3 s, later ones wait 3 s
const QUEUE_EVENTS_MAX = 100_000; // tddb TQueue.cpp MAX_QUEUE_EVENTS
/** Client.cpp get_update_type_name; DEFAULT_ALLOWED_UPDATE_TYPES (Client.h) is all of them but the last three here. */
const UPDATE_TYPES = [
  'message', 'edited_message', 'channel_post', 'edited_channel_post', 'inline_query', 'chosen_inline_result', 'callback_query',
  'custom_event', 'custom_query', 'shipping_query', 'pre_checkout_query', 'poll', 'poll_answer', 'my_chat_member',
  'chat_join_request', 'chat_boost', 'removed_chat_boost', 'business_connection', 'business_message',
  'edited_business_message', 'deleted_business_messages', 'purchased_paid_media', 'managed_bot', 'guest_message',
  'chat_member', 'message_reaction', 'message_reaction_count',
];
const DEFAULT_UPDATE_TYPES = new Set(UPDATE_TYPES.slice(0, -3));
/** Client.cpp get_inline_keyboard_button_type: button kinds the real server accepts that this fake does not model. */
const UNMODELLED_BUTTON_FIELDS = [
  'callback_game', 'pay', 'switch_inline_query', 'switch_inline_query_chosen_chat', 'switch_inline_query_current_chat',
  'login_url', 'web_app', 'copy_text',
];

/** A request Telegram refuses; the handler turns it into the error JSON. */
class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly description: string,
    readonly retryAfter?: number,
  ) {
    super(description);
  }
}

/**
 * Client.cpp fail_query_with_error: "Bad Request: " and the TDLib or server message, its first letter lower-cased
 * unless the message is an UPPER_CASE server error code (second character '_' or a capital), which stays as it is.
 */
function badRequest(message: string): Refusal {
  const second = message.charAt(1);
  const keep = message.length >= 2 && (second === '_' || (second >= 'A' && second <= 'Z'));
  return new Refusal(400, `Bad Request: ${keep ? message : message.charAt(0).toLowerCase() + message.slice(1)}`);
}

/** The request's parameters (Query.h arg): the first one of that name wins, and the URL query comes before the body. */
class Args {
  constructor(
    private readonly pairs: readonly (readonly [string, string])[],
    /** Multipart file fields: field name → file name. */
    readonly files: ReadonlyMap<string, string>,
  ) {}

  get(name: string): string {
    return this.pairs.find(([key]) => key === name)?.[1] ?? '';
  }

  /** Client.cpp get_integer_arg: empty means the default, anything else is read leniently, then clamped. */
  int(name: string, fallback: number, min = -(2 ** 31), max = 2 ** 31 - 1): number {
    const value = this.get(name);
    return Math.min(max, Math.max(min, value === '' ? fallback : toInteger(value)));
  }

  /** Client.cpp to_bool: trimmed, case-insensitive "true", "yes" or "1". */
  bool(name: string): boolean {
    return ['true', 'yes', '1'].includes(this.get(name).trim().toLowerCase());
  }
}

interface QueuedUpdate {
  readonly update_id: number;
  readonly payload: Record<string, unknown>;
}

interface LongPoll {
  readonly res: ServerResponse;
  readonly offset: number;
  readonly limit: number;
  timer: NodeJS.Timeout;
  woken: boolean;
}

interface CallbackQueryState {
  readonly pressedAt: number;
  answered: boolean;
}

interface Answer {
  readonly result: unknown;
  readonly description?: string;
}

/** getUpdates that waits answers later, on its own. */
const DEFERRED = Symbol('answered later');
type Outcome = Answer | typeof DEFERRED;

export async function startFakeTelegram(options: FakeTelegramOptions = {}): Promise<FakeTelegram> {
  const chats = [...(options.chats ?? [DEFAULT_CHAT_ID])];
  const photoHosts = options.photoHosts?.map((host) => host.toLowerCase());
  const photoUrlError = options.photoUrlError ?? PHOTO_URL_ERRORS[0];
  const callbackQueryTimeoutMs = options.callbackQueryTimeoutMs ?? 15_000;
  const botId = randomInt(7_000_000_000, 8_999_999_999);
  const token = `${botId}:AA${randomBytes(33).toString('base64url').slice(0, 33)}`;
  const sent: SentMessage[] = [];
  const received: RecordedRequest[] = [];
  const answers = new Map<string, CallbackAnswer>();
  const callbackQueries = new Map<string, CallbackQueryState>();
  const chatInstances = new Map<number, string>();
  const messageWaiters = new ArrivalWaiters<SentMessage[]>();
  const answerWaiters = new ArrivalWaiters<CallbackAnswer>();
  const timers = new Set<NodeJS.Timeout>();
  const queue: QueuedUpdate[] = [];
  // tddb TQueue.cpp push: a queue's first id is random, then ids go up by one. Undefined until the first update.
  let nextUpdateId: number | undefined;
  let allowedUpdates: ReadonlySet<string> = DEFAULT_UPDATE_TYPES;
  let longPoll: LongPoll | undefined;
  let previousOffset = -1; // Client.h previous_get_updates_offset_
  let previousStart = -Infinity;
  let nextConflictAt = 0;
  let webhookUrl: string | undefined;
  let nextSetWebhookAt = 0;
  let floodLeft = 0;
  let floodRetryAfter = 0;
  let nextMessageId = 1;

  const cancel = (timer: NodeJS.Timeout): void => {
    clearTimeout(timer);
    timers.delete(timer);
  };

  const later = (ms: number, run: () => void): NodeJS.Timeout => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
    return timer;
  };

  // ---- updates and long polling ----

  /**
   * Client.cpp fail_query_conflict: the first 409 goes out at once and blocks the next ones for 3 s; a 409 inside that
   * window is held back 3 s, so a client that loops on the conflict is slowed down.
   */
  const failConflict = (res: ServerResponse, description: string): void => {
    const now = performance.now();
    if (now >= nextConflictAt) {
      nextConflictAt = now + CONFLICT_SPACING_MS;
      replyError(res, new Refusal(409, description));
    } else {
      later(CONFLICT_SPACING_MS, () => replyError(res, new Refusal(409, description)));
    }
  };

  /** Client.cpp abort_long_poll: the request already waiting is the one that gets the 409, not the newcomer. */
  const abortLongPoll = (description: string): void => {
    if (!longPoll) return;
    cancel(longPoll.timer);
    const { res } = longPoll;
    longPoll = undefined;
    failConflict(res, description);
  };

  /** Client.cpp do_get_updates with TQueue (tddb TQueue.cpp) semantics. */
  const getUpdates = (requestedOffset: number, limit: number, timeout: number, res: ServerResponse): void => {
    let offset = requestedOffset;
    if (offset < 0) queue.splice(0, Math.max(0, queue.length + offset)); // keep only the last -offset updates
    const tail = nextUpdateId;
    let updates: QueuedUpdate[] = [];
    if (tail !== undefined) {
      const head = queue[0]?.update_id ?? tail;
      if (offset <= 0) offset = head;
      // TQueue get: an offset too far ahead or behind is ignored (reads from the head, confirms nothing); otherwise
      // every update below it is confirmed and forgotten.
      if (offset <= tail + 10 && offset >= head - QUEUE_EVENTS_MAX) {
        while (queue[0] && queue[0].update_id < offset) queue.shift();
      }
      updates = queue.slice(0, limit);
    }
    if (timeout !== 0 && updates.length === 0) {
      abortLongPoll(OTHER_GETUPDATES_CONFLICT);
      const poll: LongPoll = {
        res,
        offset,
        limit,
        woken: false,
        timer: later(timeout * 1000, () => finishLongPoll(poll)),
      };
      longPoll = poll;
      return;
    }
    replyOk(res, { result: updates.map(({ update_id, payload }) => ({ update_id, ...payload })) });
  };

  const finishLongPoll = (poll: LongPoll): void => {
    if (longPoll !== poll) return;
    cancel(poll.timer);
    longPoll = undefined;
    getUpdates(poll.offset, poll.limit, 0, poll.res);
  };

  /** Client.cpp add_update: stored whether or not anyone polls; a waiting getUpdates is woken (long_poll_wakeup). */
  const pushUpdate = (type: string, payload: Record<string, unknown>): void => {
    // Client.cpp update_allowed_update_types: a type the bot excluded is never queued.
    if (!allowedUpdates.has(type)) return;
    nextUpdateId ??= randomInt(2_000_001, 1_000_000_000); // TQueue.cpp push: Random::fast(2 * 10^6 + 1, MAX_ID / 2)
    queue.push({ update_id: nextUpdateId++, payload: { [type]: payload } });
    const poll = longPoll;
    if (poll && !poll.woken) {
      poll.woken = true;
      cancel(poll.timer);
      poll.timer = later(LONG_POLL_WAIT_AFTER_MS, () => finishLongPoll(poll));
    }
  };

  // ---- messages ----

  const botUser = (): Record<string, unknown> => ({ id: botId, is_bot: true, first_name: BOT_FIRST_NAME, username: BOT_USERNAME });

  const messageJson = (message: SentMessage, chatId = message.chat_id): Record<string, unknown> => {
    const { text, entities } = message.formatted;
    const content: Record<string, unknown> = message.kind === 'text'
      ? { text, entities: entities.length > 0 ? entities : undefined }
      : {
          photo: photoSizes(message),
          caption: text === '' ? undefined : text,
          caption_entities: entities.length > 0 ? entities : undefined,
        };
    // Client.cpp JsonMessage::store: message_id, from, chat, date, edit_date, then the content and reply_markup.
    return {
      message_id: message.message_id,
      from: botUser(),
      chat: chatJson(chatId),
      date: message.date,
      edit_date: message.edit_date,
      ...content,
      reply_markup: message.reply_markup,
    };
  };

  /**
   * Client.cpp check_chat: an empty chat_id is refused by name, an @username is looked up (the fake knows none), and
   * a number is read leniently; a chat the bot never met is "chat not found".
   */
  const resolveChat = (raw: string): number => {
    if (raw === '') throw badRequest('chat_id is empty');
    const chatId = raw.startsWith('@') ? Number.NaN : toInteger(raw);
    if (!chats.includes(chatId)) throw badRequest('chat not found');
    return chatId;
  };

  /** Client.cpp check_message: the chat first, then "<what> not found" for a message id that is not there. */
  const findMessage = (args: Args): SentMessage => {
    const chatId = resolveChat(args.get('chat_id'));
    const messageId = args.int('message_id', 0);
    const message = sent.find((candidate) => candidate.chat_id === chatId && candidate.message_id === messageId);
    if (!message) throw badRequest('message to edit not found');
    return message;
  };

  /** Client.cpp: edit methods without chat_id and message_id mean an inline message, which the fake does not model. */
  const requireChatMessage = (args: Args): void => {
    if (args.get('chat_id') !== '' || args.int('message_id', 0) > 0) return;
    if (args.get('inline_message_id') === '') throw badRequest('Message identifier is not specified');
    throw new Error('fake Telegram: inline messages are not modelled');
  };

  const record = (message: SentMessage): SentMessage => {
    sent.push(message);
    messageWaiters.settle();
    return message;
  };

  /** Telegram's servers cannot fetch from loopback or private networks; an allow-list, when given, is the whole truth. */
  const canDownload = (host: string): boolean => (photoHosts ? photoHosts.includes(host) : !isPrivateHost(host));

  const unixNow = (): number => Math.floor(Date.now() / 1000);

  // ---- methods ----

  const methods: Record<string, (args: Args, request: RecordedRequest, res: ServerResponse) => Outcome> = {
    // Client.cpp process_get_me_query: JsonUser with full_bot_info.
    getme: () => ({
      result: {
        ...botUser(),
        can_join_groups: true,
        can_read_all_group_messages: false,
        supports_inline_queries: false,
        supports_guest_queries: false,
        can_connect_to_business: false,
        has_main_web_app: false,
        has_topics_enabled: false,
        allows_users_to_create_topics: false,
        can_manage_bots: false,
      },
    }),

    // Client.cpp process_send_message_query → get_input_message_text → do_send_message; order of checks kept.
    sendmessage: (args, request) => {
      const linkPreviewDisabled = readLinkPreview(args);
      const text = args.get('text');
      if (text === '') throw badRequest('Message text is empty');
      const parseMode = args.get('parse_mode');
      const parsed = formatText(text, parseMode);
      const markup = parseReplyMarkup(args.get('reply_markup'));
      const chatId = resolveChat(args.get('chat_id'));
      // TDLib: the keyboard is checked before the content (MessagesManager.cpp send_message).
      const keyboard = checkKeyboard(markup);
      const formatted = trimFormatted(parsed);
      if (!formatted) throw badRequest('Text must be non-empty');
      // MessageContent.cpp create_input_message_content: code points after parsing and trimming.
      if (codePoints(formatted.text) > TEXT_LENGTH_MAX) throw badRequest('Message is too long');
      checkCallbackData(keyboard);
      const message = record({
        message_id: nextMessageId++, chat_id: chatId, kind: 'text', text, parse_mode: parseMode || undefined,
        reply_markup: keyboard, formatted, link_preview_disabled: linkPreviewDisabled, edits: 0, date: unixNow(), raw: request,
      });
      return { result: messageJson(message) };
    },

    // Client.cpp process_send_photo_query / get_input_file; td files/FileManager.cpp from_persistent_id.
    sendphoto: (args, request) => {
      const photoArg = args.get('photo');
      const fileField = photoArg.startsWith('attach://') ? photoArg.slice('attach://'.length) : photoArg === '' ? 'photo' : undefined;
      const uploaded = fileField === undefined ? undefined : args.files.get(fileField);
      if (fileField !== undefined && uploaded === undefined) throw badRequest('There is no photo in the request');
      const parseMode = args.get('parse_mode');
      const caption = args.get('caption');
      const parsed = formatText(caption, parseMode);
      const markup = parseReplyMarkup(args.get('reply_markup'));
      const chatId = resolveChat(args.get('chat_id'));
      const keyboard = checkKeyboard(markup);
      // FileManager.cpp from_persistent_id: a string with a dot is an HTTP URL, anything else a file_id.
      let host: string | undefined;
      if (uploaded === undefined) {
        if (!photoArg.includes('.')) throw new Error(`fake Telegram: file_ids are not modelled (photo=${photoArg})`);
        const url = parseUrl(photoArg);
        if (typeof url === 'string') throw badRequest(`Invalid file HTTP URL specified: ${url}`);
        host = url.host;
      }
      // MessageContent.cpp get_input_message_content: captions may be empty, but not longer than the limit.
      const formatted = checkedCaption(parsed, keyboard, 'Message caption is too long');
      // Telegram's servers download the URL themselves (inputMediaPhotoExternal); a failure comes back as one of
      // the errors Client.cpp fail_query_with_error maps.
      if (host !== undefined && !canDownload(host)) throw badRequest(photoUrlError);
      const message = record({
        message_id: nextMessageId++, chat_id: chatId, kind: 'photo', photo: uploaded === undefined ? photoArg : `upload:${uploaded}`,
        caption: caption === '' ? undefined : caption, parse_mode: parseMode || undefined, reply_markup: keyboard, formatted,
        link_preview_disabled: false, edits: 0, date: unixNow(), raw: request,
      });
      return { result: messageJson(message) };
    },

    // Client.cpp process_edit_message_text_query; td MessagesManager.cpp edit_message_text.
    editmessagetext: (args) => {
      const linkPreviewDisabled = readLinkPreview(args);
      const text = args.get('text');
      if (text === '') throw badRequest('Message text is empty');
      const parseMode = args.get('parse_mode');
      const parsed = formatText(text, parseMode);
      const markup = parseReplyMarkup(args.get('reply_markup'));
      requireChatMessage(args);
      const message = findMessage(args);
      if (message.kind !== 'text') throw badRequest('There is no text in the message to edit');
      const keyboard = checkKeyboard(markup);
      const formatted = trimFormatted(parsed);
      if (!formatted) throw badRequest('Text must be non-empty');
      // The edit goes straight to the server, whose code is passed through unmapped (teloxide/teloxide#430).
      if (codePoints(formatted.text) > TEXT_LENGTH_MAX) throw badRequest('MESSAGE_TOO_LONG');
      checkCallbackData(keyboard);
      // Leaving out reply_markup removes the keyboard (MessagesManager.cpp EditMessageQuery sends no markup, and the
      // server drops it: TelegramBots/Telegram.Bot#402, LasterAlex/teloxide_tests#31, mullwar/telebot#157 for captions).
      if (sameFormatted(message.formatted, formatted) && sameKeyboard(message.reply_markup, keyboard)) throw badRequest(NOT_MODIFIED);
      Object.assign(message, { text, parse_mode: parseMode || undefined, formatted, reply_markup: keyboard, link_preview_disabled: linkPreviewDisabled });
      return { result: messageJson(applyEdit(message)) };
    },

    // Client.cpp process_edit_message_caption_query (reply_markup is read before the caption there).
    editmessagecaption: (args) => {
      const markup = parseReplyMarkup(args.get('reply_markup'));
      const caption = args.get('caption');
      const parseMode = args.get('parse_mode');
      const parsed = formatText(caption, parseMode);
      requireChatMessage(args);
      const message = findMessage(args);
      // MessagesManager.cpp edit_message_caption: only media can have a caption.
      if (message.kind !== 'photo') throw badRequest('There is no caption in the message to edit');
      const keyboard = checkKeyboard(markup);
      // By analogy with MESSAGE_TOO_LONG on editMessageText: the server's own code (not seen in a thread).
      const formatted = checkedCaption(parsed, keyboard, 'MEDIA_CAPTION_TOO_LONG');
      if (sameFormatted(message.formatted, formatted) && sameKeyboard(message.reply_markup, keyboard)) throw badRequest(NOT_MODIFIED);
      Object.assign(message, { caption: caption === '' ? undefined : caption, parse_mode: parseMode || undefined, formatted, reply_markup: keyboard });
      return { result: messageJson(applyEdit(message)) };
    },

    // Client.cpp process_edit_message_reply_markup_query; MessagesManager.cpp edit_message_reply_markup.
    editmessagereplymarkup: (args) => {
      const markup = parseReplyMarkup(args.get('reply_markup'));
      requireChatMessage(args);
      const message = findMessage(args);
      const keyboard = checkKeyboard(markup);
      checkCallbackData(keyboard);
      if (sameKeyboard(message.reply_markup, keyboard)) throw badRequest(NOT_MODIFIED);
      message.reply_markup = keyboard;
      return { result: messageJson(applyEdit(message)) };
    },

    // Client.cpp process_answer_callback_query_query: the id is read leniently as an int64, the server checks it.
    answercallbackquery: (args) => {
      const id = int64String(args.get('callback_query_id'));
      const state = callbackQueries.get(id);
      // Server QUERY_ID_INVALID (mapped in fail_query_with_error): unknown, already answered, or too old.
      if (!state || state.answered || performance.now() - state.pressedAt > callbackQueryTimeoutMs) {
        throw badRequest('query is too old and response timeout expired or query ID is invalid');
      }
      const text = args.get('text');
      // The server's own code for a notification over 200 characters (eternnoir/pyTelegramBotAPI#500).
      if (codePoints(text) > CALLBACK_ANSWER_LENGTH_MAX) throw badRequest('MESSAGE_TOO_LONG');
      state.answered = true;
      const showAlert = args.bool('show_alert');
      answers.set(id, text === '' ? { show_alert: showAlert } : { text, show_alert: showAlert });
      answerWaiters.settle();
      return { result: true };
    },

    // Client.cpp process_get_updates_query.
    getupdates: (args, _request, res) => {
      if (webhookUrl !== undefined) {
        failConflict(res, WEBHOOK_CONFLICT);
        return DEFERRED;
      }
      const offset = args.int('offset', 0);
      let limit = args.int('limit', 100, 1, 100);
      let timeout = args.int('timeout', 0, 0, LONG_POLL_MAX_TIMEOUT_S);
      updateAllowedUpdates(args.get('allowed_updates'));
      // Two quirks against busy loops: the same offset again within 3 s waits at least 3 s when there is nothing
      // new, and within 0.5 s gets one update at most.
      const now = performance.now();
      if (offset === previousOffset && timeout < 3 && now < previousStart + 3_000) timeout = 3;
      if (offset === previousOffset && now < previousStart + 500) limit = 1;
      previousOffset = offset;
      previousStart = now;
      getUpdates(offset, limit, timeout, res);
      return DEFERRED;
    },

    // Client.cpp process_set_webhook_query / do_set_webhook; the certificate and IP options are not modelled.
    setwebhook: (args) => setWebhookFromApi(args.get('url'), args),
    deletewebhook: (args) => setWebhookFromApi('', args),
  };

  const applyEdit = (message: SentMessage): SentMessage => {
    message.edits++;
    message.edit_date = unixNow();
    return message;
  };

  const updateAllowedUpdates = (raw: string): void => {
    // Client.cpp get_allowed_update_types: absent or unreadable keeps the previous choice; no known name (an empty
    // list included) means the default set; names are case-insensitive.
    if (raw === '') return;
    const parsed = parseJsonBody(raw);
    if (parsed.invalid || !Array.isArray(parsed.value)) return;
    const names: unknown[] = parsed.value;
    if (!names.every((name): name is string => typeof name === 'string')) return;
    const known = new Set(names.map((name) => name.toLowerCase()).filter((name) => UPDATE_TYPES.includes(name)));
    allowedUpdates = known.size > 0 ? known : DEFAULT_UPDATE_TYPES;
  };

  const setWebhookFromApi = (url: string, args: Args): Answer => {
    const now = performance.now();
    if (url !== '') {
      // Client.cpp process_set_webhook_query: at most one setWebhook with a URL per second.
      if (now < nextSetWebhookAt) throw new Refusal(429, 'Too Many Requests: retry after 1', 1);
      nextSetWebhookAt = now + 1_000;
    }
    const dropPending = args.bool('drop_pending_updates');
    if (url === (webhookUrl ?? '') && !dropPending) return { result: true, description: url === '' ? 'Webhook is already deleted' : 'Webhook is already set' };
    if (dropPending) queue.length = 0; // do_set_webhook: clear_tqueue
    if (url === '') {
      const wasSet = webhookUrl !== undefined;
      webhookUrl = undefined;
      return { result: true, description: wasSet ? 'Webhook was deleted' : 'Webhook is already deleted' };
    }
    // do_set_webhook, then WebhookActor.cpp: the URL must parse, be HTTPS and use one of four ports.
    const parsed = parseUrl(url, 'https');
    if (typeof parsed === 'string') throw badRequest('invalid webhook URL specified');
    if (parsed.protocol !== 'https') throw badRequest('bad webhook: An HTTPS URL must be provided for webhook');
    if (![0, 80, 88, 443, 8443].includes(parsed.specifiedPort)) throw badRequest('bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443');
    setWebhook(url);
    return { result: true, description: 'Webhook was set' };
  };

  const setWebhook = (url: string | undefined): void => {
    // Client.cpp process_set_webhook_query: a new webhook ends the long poll in progress.
    if (url !== undefined) abortLongPoll(SET_WEBHOOK_CONFLICT);
    webhookUrl = url;
  };

  /**
   * HttpConnection.cpp handle and ClientManager.cpp send: /bot<token>/<method>, the method name case-insensitive
   * (Query.cpp lower-cases it; an empty one is taken from a `method` parameter).
   */
  const route = async (request: RecordedRequest, res: ServerResponse): Promise<Outcome> => {
    let path = request.path;
    try {
      path = decodeURIComponent(path);
    } catch {
      // HttpReader.cpp parse_url decodes what it can; a broken escape is left as it is.
    }
    const match = /^\/bot([^/]*)\/(.*)$/s.exec(path);
    if (!match) throw new Refusal(404, 'Not Found');
    const [, requestToken = '', pathMethod = ''] = match;
    if (requestToken !== token) {
      // api.telegram.org: a wrong token of the right shape is 401 "Unauthorized" (eternnoir/pyTelegramBotAPI#168,
      // nickoala/telepot#365), one that cannot be a token 404 "Not Found" (eternnoir/pyTelegramBotAPI#1461), as is a
      // path without /bot (AzuraCast/AzuraCast#1256). Where exactly the cloud draws the line is not documented. The
      // self-hosted server answers 401 "Unauthorized: invalid token specified" instead (ClientManager.cpp send).
      throw /^\d+:[\w-]+$/.test(requestToken) ? new Refusal(401, 'Unauthorized') : new Refusal(404, 'Not Found');
    }
    const args = await readArgs(request);
    const method = (pathMethod === '' ? args.get('method') : pathMethod).toLowerCase();
    const handler = methods[method];
    // api.telegram.org answers the same plain 404 "Not Found" body as for a bad path; the self-hosted server adds
    // ": method not found" (Client.cpp on_cmd).
    if (!handler) throw new Refusal(404, 'Not Found');
    if (floodLeft > 0) {
      floodLeft--;
      throw new Refusal(429, `Too Many Requests: retry after ${floodRetryAfter}`, floodRetryAfter);
    }
    return handler(args, request, res);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const request = await recordRequest(req);
    received.push(request);
    let outcome: Outcome;
    try {
      outcome = await route(request, res);
    } catch (error: unknown) {
      if (!(error instanceof Refusal)) throw error;
      return replyError(res, error);
    }
    if (outcome !== DEFERRED) replyOk(res, outcome);
  };

  const listener = await listenOnLoopback(handle);
  return {
    apiUrl: listener.origin,
    token,
    chats,
    sent,
    received,
    answers,
    waitForMessages(count, timeoutMs = 60_000) {
      return messageWaiters.wait(() => (sent.length >= count ? sent.slice(0, count) : undefined), timeoutMs,
        () => `${count} Telegram message(s), got ${sent.length}`);
    },
    waitForAnswer(callbackQueryId, timeoutMs = 60_000) {
      return answerWaiters.wait(() => answers.get(callbackQueryId), timeoutMs, () => `an answer to callback query ${callbackQueryId}`);
    },
    press(message, callbackData, from, chatId = message.chat_id) {
      const current = sent.find((candidate) => candidate.chat_id === message.chat_id && candidate.message_id === message.message_id);
      if (!current) throw new Error(`fake Telegram: message ${message.message_id} was never sent`);
      const buttons = current.reply_markup?.inline_keyboard.flat() ?? [];
      if (!buttons.some((button) => button.callback_data === callbackData)) {
        throw new Error(`fake Telegram: message ${message.message_id} has no button with callback_data ${JSON.stringify(callbackData)}`);
      }
      const id = randomInt64();
      callbackQueries.set(id, { pressedAt: performance.now(), answered: false });
      // Client.cpp JsonCallbackQuery: id and chat_instance are int64s written as strings.
      let chatInstance = chatInstances.get(chatId);
      if (chatInstance === undefined) {
        chatInstance = randomInt64();
        chatInstances.set(chatId, chatInstance);
      }
      pushUpdate('callback_query', {
        id,
        from: { id: from.id, is_bot: false, first_name: from.first_name, username: from.username },
        message: messageJson(current, chatId),
        chat_instance: chatInstance,
        data: callbackData,
      });
      return id;
    },
    setWebhook,
    floodNext(count, retryAfterSeconds) {
      floodLeft = count;
      floodRetryAfter = retryAfterSeconds;
    },
    close() {
      // A long poll in progress ends now with nothing in it, so no test waits for its timeout.
      if (longPoll) {
        cancel(longPoll.timer);
        replyOk(longPoll.res, { result: [] });
        longPoll = undefined;
      }
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      messageWaiters.closeAll('fake Telegram closed');
      answerWaiters.closeAll('fake Telegram closed');
      return listener.close();
    },
  };
}

// ---- replies ----

/** Query.h JsonQueryOk, HttpConnection.cpp send_response: `application/json` without a charset. */
function replyOk(res: ServerResponse, answer: Answer): void {
  if (res.destroyed || res.writableEnded) return;
  replyText(res, 200, JSON.stringify({ ok: true, result: answer.result, description: answer.description }), 'application/json');
}

/** Query.h JsonQueryError; Query.cpp set_retry_after_error adds `parameters.retry_after` and a Retry-After header. */
function replyError(res: ServerResponse, refusal: Refusal): void {
  if (res.destroyed || res.writableEnded) return;
  const retryAfter = refusal.retryAfter;
  const body = {
    ok: false,
    error_code: refusal.status,
    description: refusal.description,
    parameters: retryAfter === undefined ? undefined : { retry_after: retryAfter },
  };
  replyText(res, refusal.status, JSON.stringify(body), 'application/json', retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) });
}

// ---- request parameters ----

/**
 * tdnet HttpReader.cpp: URL query parameters, then the body by Content-Type (multipart, then urlencoded, then JSON,
 * each matched as a substring). A body of any other type, a JSON body sent as text/plain included, is ignored.
 */
async function readArgs(request: RecordedRequest): Promise<Args> {
  const pairs: [string, string][] = [...request.query];
  const files = new Map<string, string>();
  const rawType = request.headers['content-type'] ?? '';
  const contentType = rawType.toLowerCase();
  if (contentType.includes('multipart/form-data')) {
    const form = await new Response(request.body, { headers: { 'content-type': rawType } }).formData();
    for (const [name, value] of form) {
      if (typeof value === 'string') pairs.push([name, value]);
      else files.set(name, value.name);
    }
  } else if (contentType.includes('application/x-www-form-urlencoded')) {
    pairs.push(...new URLSearchParams(request.text));
  } else if (contentType.includes('application/json')) {
    pairs.push(...jsonArgs(request.text));
  }
  return new Args(pairs, files);
}

/**
 * HttpReader.cpp parse_json_parameters: an object's string members are taken as they are, any other member as its
 * JSON text (so reply_markup may be an object or a string holding one). A body that is not an object gives no
 * parameters; the error is only logged. (The real parser keeps members read before a syntax error; the fake keeps none.)
 */
function jsonArgs(text: string): [string, string][] {
  const parsed = parseJsonBody(text);
  if (parsed.invalid) return [];
  if (typeof parsed.value === 'string') return [['content', parsed.value]];
  if (!isJsonObject(parsed.value)) return [];
  return Object.entries(parsed.value).map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)]);
}

/** td::to_integer: an optional '-', then the leading digits; anything else reads as 0. */
function toInteger(value: string): number {
  const match = /^-?\d+/.exec(value);
  return match ? Number(match[0]) : 0;
}

function int64String(value: string): string {
  const match = /^-?\d+/.exec(value);
  return match ? BigInt(match[0]).toString() : '0';
}

function randomInt64(): string {
  return (randomBytes(8).readBigUInt64BE() >> 1n).toString();
}

/** Client.cpp get_link_preview_options: the object wins over the legacy disable_web_page_preview flag. */
function readLinkPreview(args: Args): boolean {
  const raw = args.get('link_preview_options');
  if (raw === '') return args.bool('disable_web_page_preview');
  const parsed = parseJsonBody(raw);
  if (parsed.invalid || parsed.value === undefined) throw badRequest('Can\'t parse link preview options JSON object');
  if (!isJsonObject(parsed.value)) throw badRequest('Object expected as link preview options');
  return parsed.value['is_disabled'] === true;
}

// ---- text and HTML ----

interface ParsedEntity {
  type: string;
  offset: number;
  length: number;
  /** a: the URL; pre/code: the language; tg-emoji: the custom emoji id; text_mention: the user id. */
  argument: string;
}

interface ParsedText {
  readonly text: string;
  readonly entities: ParsedEntity[];
}

/** Client.cpp get_formatted_text: a byte limit on the raw text, then the parse mode (case-insensitive). */
function formatText(text: string, parseMode: string): ParsedText {
  if (Buffer.byteLength(text) > RAW_TEXT_BYTES_MAX) throw badRequest('Text is too long');
  const mode = parseMode.toLowerCase();
  if (text === '' || mode === '' || mode === 'none') return { text, entities: [] };
  if (mode === 'html') return parseHtml(text);
  if (mode === 'markdown' || mode === 'markdownv2') throw new Error('fake Telegram: Markdown parse modes are not modelled');
  throw badRequest('Unsupported parse_mode');
}

const HTML_TAGS = new Set([
  'a', 'b', 'strong', 'i', 'em', 's', 'strike', 'del', 'u', 'ins', 'tg-spoiler', 'tg-emoji', 'tg-time', 'span', 'pre', 'code', 'blockquote',
]);
const SIMPLE_TAG_ENTITIES: Readonly<Record<string, string>> = {
  b: 'bold', strong: 'bold', i: 'italic', em: 'italic', u: 'underline', ins: 'underline',
  s: 'strikethrough', strike: 'strikethrough', del: 'strikethrough', 'tg-spoiler': 'spoiler',
};

interface OpenTag {
  readonly name: string;
  readonly argument: string;
  readonly offset: number;
}

/**
 * td MessageEntity.cpp parse_html, step by step: only the listed tags, `&lt; &gt; &amp; &quot;` and numeric
 * references are decoded, while a `&` that starts no known entity stays a literal `&` (it is not an error). Any `<`
 * opens a tag, so "a < b" is an unsupported tag "". Errors name the byte offset in the UTF-8 text.
 */
function parseHtml(source: string): ParsedText {
  const fail = (detail: string): never => {
    throw badRequest(`Can't parse entities: ${detail}`);
  };
  const at = (index: number): string => source.charAt(index); // '' past the end, which counts as a space
  const byteOffset = (index: number): number => Buffer.byteLength(source.slice(0, index));
  const entities: ParsedEntity[] = [];
  const open: OpenTag[] = [];
  let out = '';
  for (let i = 0; i < source.length; i++) {
    const c = at(i);
    if (c === '&') {
      const decoded = decodeHtmlEntity(source, i);
      if (decoded) {
        out += decoded.character;
        i = decoded.end - 1;
        continue;
      }
    }
    if (c !== '<') {
      out += c;
      continue;
    }
    const begin = i++;
    if (at(i) !== '/') {
      while (!isSpace(at(i)) && at(i) !== '>') i++;
      if (i >= source.length) fail(`Unclosed start tag at byte offset ${byteOffset(begin)}`);
      const name = asciiLower(source.slice(begin + 1, i));
      if (!HTML_TAGS.has(name)) fail(`Unsupported start tag "${name}" at byte offset ${byteOffset(begin)}`);
      let argument = '';
      while (at(i) !== '>') {
        while (i < source.length && isSpace(at(i))) i++;
        if (at(i) === '>') break;
        const attributeBegin = i;
        while (!isSpace(at(i)) && !'=>/"\''.includes(at(i))) i++;
        const attribute = source.slice(attributeBegin, i);
        if (attribute === '') fail(`Empty attribute name in the tag "${name}" at byte offset ${byteOffset(begin)}`);
        while (i < source.length && isSpace(at(i))) i++;
        if (at(i) !== '=') {
          if (i >= source.length) fail(`Unclosed start tag "${name}" at byte offset ${byteOffset(begin)}`);
          if (name === 'blockquote' && attribute === 'expandable') argument = '1';
          continue;
        }
        i++;
        while (i < source.length && isSpace(at(i))) i++;
        if (i >= source.length) fail(`Unclosed start tag "${name}" at byte offset ${byteOffset(begin)}`);
        let value = '';
        if (at(i) !== '"' && at(i) !== '\'') {
          const tokenBegin = i;
          while (/^[A-Za-z0-9.-]$/.test(at(i))) i++;
          value = asciiLower(source.slice(tokenBegin, i));
          if (!isSpace(at(i)) && at(i) !== '>') fail(`Unexpected end of name token at byte offset ${byteOffset(tokenBegin)}`);
        } else {
          const quote = at(i++);
          while (i < source.length && at(i) !== quote) {
            const decoded = at(i) === '&' ? decodeHtmlEntity(source, i) : undefined;
            if (decoded) {
              value += decoded.character;
              i = decoded.end;
            } else {
              value += at(i++);
            }
          }
          if (at(i) === quote) i++;
        }
        if (i >= source.length) fail(`Unclosed start tag at byte offset ${byteOffset(begin)}`);
        if (name === 'a' && attribute === 'href') argument = value;
        else if (name === 'code' && attribute === 'class' && value.startsWith('language-')) argument = value.slice('language-'.length);
        else if (name === 'span' && attribute === 'class' && value.startsWith('tg-')) argument = value.slice('tg-'.length);
        else if (name === 'tg-emoji' && attribute === 'emoji-id') argument = value;
        else if (name === 'blockquote' && attribute === 'expandable') argument = '1';
      }
      if (name === 'span' && argument !== 'spoiler') fail(`Tag "span" must have class "tg-spoiler" at byte offset ${byteOffset(begin)}`);
      open.push({ name, argument, offset: out.length });
      continue;
    }
    // An end tag; `</>` closes whatever is open.
    const top = open.at(-1);
    if (!top) return fail(`Unexpected end tag at byte offset ${byteOffset(begin)}`);
    while (!isSpace(at(i)) && at(i) !== '>') i++;
    const endName = asciiLower(source.slice(begin + 2, i));
    while (i < source.length && isSpace(at(i))) i++;
    if (at(i) !== '>') fail(`Unclosed end tag at byte offset ${byteOffset(begin)}`);
    if (endName !== '' && endName !== top.name) {
      fail(`Unmatched end tag at byte offset ${byteOffset(begin)}, expected "</${top.name}>", found "</${endName}>"`);
    }
    open.pop();
    const length = out.length - top.offset;
    if (length > 0) closeEntity(top, length, out, entities);
  }
  const unclosed = open.at(-1);
  if (unclosed) fail(`Can't find end tag corresponding to start tag "${unclosed.name}"`);
  // Decoded references may leave half a surrogate pair.
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(out)) {
    fail('Text contains invalid Unicode characters after decoding HTML entities, check for unmatched surrogate code units');
  }
  for (const entity of entities) if (entity.type === 'code') entity.argument = '';
  // MessageEntity.cpp sort_entities: by offset, the longer one first.
  entities.sort((a, b) => a.offset - b.offset || b.length - a.length);
  return { text: out, entities };
}

/** parse_html, end-tag branch: which entity a closed tag becomes. */
function closeEntity(tag: OpenTag, length: number, out: string, entities: ParsedEntity[]): void {
  const { name, argument, offset } = tag;
  const simple = SIMPLE_TAG_ENTITIES[name] ?? (name === 'span' ? 'spoiler' : undefined);
  const last = entities.at(-1);
  const sameRange = last !== undefined && last.offset === offset && last.length === length;
  if (simple) {
    entities.push({ type: simple, offset, length, argument: '' });
  } else if (name === 'tg-emoji') {
    if (!/^-?\d+$/.test(argument) || BigInt(argument) === 0n) throw badRequest('Can\'t parse entities: Invalid custom emoji identifier specified');
    entities.push({ type: 'custom_emoji', offset, length, argument: BigInt(argument).toString() });
  } else if (name === 'tg-time') {
    throw new Error('fake Telegram: <tg-time> is not modelled');
  } else if (name === 'a') {
    // An empty href links the text itself; a tg://user link mentions the user; an invalid URL is dropped silently.
    const url = argument === '' ? out.slice(offset) : argument;
    const userId = /^tg:(?:\/\/)?user\?id=(\d+)$/i.exec(url)?.[1];
    if (userId !== undefined) {
      entities.push({ type: 'text_mention', offset, length, argument: userId });
    } else {
      const checked = checkLink(url);
      if (checked.url !== undefined) entities.push({ type: 'text_link', offset, length, argument: checked.url });
    }
  } else if (name === 'pre') {
    // <pre><code class="language-x"> is one pre entity with a language.
    if (last && sameRange && last.type === 'code' && last.argument !== '') last.type = 'pre';
    else entities.push({ type: 'pre', offset, length, argument: '' });
  } else if (name === 'code') {
    if (last && sameRange && last.type === 'pre' && argument !== '') last.argument = argument;
    else entities.push({ type: 'code', offset, length, argument });
  } else if (name === 'blockquote') {
    entities.push({ type: argument === '' ? 'blockquote' : 'expandable_blockquote', offset, length, argument: '' });
  }
}

/** MessageEntity.cpp decode_html_entity. */
function decodeHtmlEntity(text: string, position: number): { readonly character: string; readonly end: number } | undefined {
  let end = position + 1;
  let code = 0;
  if (text.charAt(end) === '#') {
    end++;
    const hex = text.charAt(end) === 'x';
    if (hex) end++;
    const digit = hex ? /^[0-9A-Fa-f]$/ : /^[0-9]$/;
    const start = end;
    while (digit.test(text.charAt(end))) end++;
    code = end > start ? parseInt(text.slice(start, end), hex ? 16 : 10) : 0;
    if (code === 0 || code >= 0x10ffff || end - position >= 10) return undefined;
  } else {
    const start = end;
    while (/^[A-Za-z]$/.test(text.charAt(end))) end++;
    const named: Readonly<Record<string, number>> = { lt: 0x3c, gt: 0x3e, amp: 0x26, quot: 0x22 };
    const value = named[text.slice(start, end)];
    if (value === undefined) return undefined;
    code = value;
  }
  if (text.charAt(end) === ';') end++;
  return { character: String.fromCodePoint(code), end };
}

/** A caption as sent or edited: trimmed (it may be empty), at most CAPTION_LENGTH_MAX, its buttons' data checked. */
function checkedCaption(parsed: ParsedText, keyboard: InlineKeyboardMarkup | undefined, tooLong: string): FormattedText {
  const formatted = trimFormatted(parsed) ?? { text: '', entities: [] };
  if (codePoints(formatted.text) > CAPTION_LENGTH_MAX) throw badRequest(tooLong);
  checkCallbackData(keyboard);
  return formatted;
}

/**
 * MessageEntity.cpp fix_formatted_text / remove_invalid_entities: trailing spaces and newlines go, and leading ones
 * before the first entity; entities are cut to what is left. Undefined when nothing is left.
 */
function trimFormatted(parsed: ParsedText): FormattedText | undefined {
  const blank = (c: string): boolean => c === ' ' || c === '\n';
  let end = parsed.text.length;
  while (end > 0 && blank(parsed.text.charAt(end - 1))) end--;
  if (end === 0) return undefined;
  const kept = parsed.entities
    .filter((entity) => entity.offset < end)
    .map((entity) => ({ ...entity, length: Math.min(entity.length, end - entity.offset) }));
  const firstEntity = kept[0]?.offset ?? end;
  let start = 0;
  while (start < firstEntity && blank(parsed.text.charAt(start))) start++;
  return {
    text: parsed.text.slice(start, end),
    entities: kept.map((entity) => entityJson({ ...entity, offset: entity.offset - start })),
  };
}

/** Client.cpp JsonEntity: the Bot API field for each entity type's argument. */
function entityJson({ type, offset, length, argument }: ParsedEntity): MessageEntity {
  if (type === 'text_link') return { type, offset, length, url: argument };
  if (type === 'pre' && argument !== '') return { type, offset, length, language: argument };
  if (type === 'custom_emoji') return { type, offset, length, custom_emoji_id: argument };
  if (type === 'text_mention') return { type, offset, length, user: { id: Number(argument), is_bot: false, first_name: '' } };
  return { type, offset, length };
}

function sameFormatted(a: FormattedText, b: FormattedText): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function codePoints(text: string): number {
  return [...text].length;
}

/** td misc.h is_space: the end of the string counts as a space. */
function isSpace(c: string): boolean {
  return c === '' || c === ' ' || c === '\t' || c === '\r' || c === '\n' || c === '\v' || c === '\0';
}

/** td::to_lower only folds ASCII. */
function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

// ---- inline keyboards ----

type BotApiButton = { readonly text: string; readonly url: string } | { readonly text: string; readonly callback_data: string };

/**
 * Client.cpp get_reply_markup / get_inline_keyboard_button(_type): what the Bot API server itself checks. A button
 * needs at least one kind; when it has several the first of url, callback_data, … wins and the rest is ignored.
 */
function parseReplyMarkup(raw: string): BotApiButton[][] | undefined {
  if (raw === '') return undefined;
  const parsed = parseJsonBody(raw);
  if (parsed.invalid || parsed.value === undefined) throw badRequest('Can\'t parse reply keyboard markup JSON object');
  const markup = parsed.value;
  if (!isJsonObject(markup)) throw badRequest('Object expected as reply markup');
  for (const field of ['keyboard', 'remove_keyboard', 'hide_keyboard', 'force_reply', 'force_reply_keyboard']) {
    if (field in markup) throw new Error(`fake Telegram: reply_markup.${field} is not modelled`);
  }
  const rows = markup['inline_keyboard'];
  if (rows === undefined) return undefined;
  if (!Array.isArray(rows)) throw badRequest('Field "inline_keyboard" must be of type Array');
  return rows.map((row: unknown) => {
    if (!Array.isArray(row)) throw badRequest('Field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays');
    return row.map((button: unknown) => {
      try {
        return parseButton(button);
      } catch (error: unknown) {
        if (error instanceof InvalidButton) throw badRequest(`Can't parse inline keyboard button: ${error.message}`);
        throw error;
      }
    });
  });
}

/** Why get_inline_keyboard_button refused a button; get_reply_markup puts it after "Can't parse inline keyboard button: ". */
class InvalidButton extends Error {}

function parseButton(button: unknown): BotApiButton {
  if (!isJsonObject(button)) throw new InvalidButton('InlineKeyboardButton must be an Object');
  const text = stringField(button, 'text');
  if (text === undefined) throw new InvalidButton('Can\'t find field "text"');
  const url = stringField(button, 'url');
  if (url) return { text, url };
  const callbackData = stringField(button, 'callback_data');
  if (callbackData) return { text, callback_data: callbackData };
  const other = UNMODELLED_BUTTON_FIELDS.find((field) => field in button);
  if (other) throw new Error(`fake Telegram: ${other} buttons are not modelled`);
  throw new InvalidButton('Text buttons are unallowed in the inline keyboard');
}

/** td JsonBuilder.cpp get_optional_string_field: a string, or a number read as its text; anything else is an error. */
function stringField(object: Record<string, unknown>, name: string): string | undefined {
  const value = object[name];
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  throw new InvalidButton(`Field "${name}" must be of type String`);
}

/**
 * td ReplyMarkup.cpp get_reply_markup / get_inline_keyboard_button: what TDLib makes of it. Buttons with empty text
 * are dropped silently, at most 12 per row and 300 in all are kept, empty rows go, and no button left means no
 * keyboard. URLs are checked and normalized like links (LinkManager.cpp check_link).
 */
function checkKeyboard(rows: BotApiButton[][] | undefined): InlineKeyboardMarkup | undefined {
  if (!rows) return undefined;
  const kept: InlineKeyboardButton[][] = [];
  let total = 0;
  for (const row of rows) {
    const keptRow: InlineKeyboardButton[] = [];
    for (const button of row) {
      if (button.text === '') continue;
      if ('url' in button) {
        // LinkManager.cpp get_link_user_id: a tg://user link makes a user button and is not checked as a URL.
        const checked: LinkCheck = /^tg:(?:\/\/)?user\?id=\d+$/i.test(button.url) ? { url: button.url } : checkLink(button.url);
        if (checked.url === undefined) throw badRequest(`Inline keyboard button ${checked.error}`);
        keptRow.push({ text: button.text, url: checked.url });
      } else {
        keptRow.push(button);
      }
      total++;
      if (keptRow.length >= 12 || total >= 300) break;
    }
    if (keptRow.length > 0) kept.push(keptRow);
    if (total >= 300) break;
  }
  return kept.length > 0 ? { inline_keyboard: kept } : undefined;
}

/** Telegram's servers refuse callback data over 64 bytes (UTF-8) with BUTTON_DATA_INVALID; TDLib does not check it. */
function checkCallbackData(keyboard: InlineKeyboardMarkup | undefined): void {
  const buttons = keyboard?.inline_keyboard.flat() ?? [];
  if (buttons.some((button) => button.callback_data !== undefined && Buffer.byteLength(button.callback_data) > CALLBACK_DATA_BYTES_MAX)) {
    throw badRequest('BUTTON_DATA_INVALID');
  }
}

function sameKeyboard(a: InlineKeyboardMarkup | undefined, b: InlineKeyboardMarkup | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

// ---- URLs ----

interface HttpUrl {
  readonly protocol: 'http' | 'https';
  readonly userinfo: string;
  readonly host: string;
  readonly isIpv6: boolean;
  /** 0 when the URL names no port. */
  readonly specifiedPort: number;
  /** The path and query, always starting with '/'. */
  readonly query: string;
}

/** tdutils HttpUrl.cpp parse_url: the parsed URL, or the error text. A URL without a scheme gets the default one. */
function parseUrl(url: string, defaultProtocol: 'http' | 'https' = 'http'): HttpUrl | string {
  const schemeEnd = indexOfAny(url, ':/?#@[]');
  let protocol = defaultProtocol;
  let rest = url;
  if (url.startsWith('://', schemeEnd)) {
    const scheme = url.slice(0, schemeEnd).toLowerCase();
    if (scheme !== 'http' && scheme !== 'https') return 'Unsupported URL protocol';
    protocol = scheme;
    rest = url.slice(schemeEnd + 3);
  }
  const authorityEnd = indexOfAny(rest, '/?#');
  const authority = rest.slice(0, authorityEnd);
  let colon = authority.length - 1;
  while (colon > 0 && !':]@'.includes(authority.charAt(colon))) colon--;
  let port = 0;
  let userinfoHost = authority;
  if (colon > 0 && authority.charAt(colon) === ':') {
    const digits = authority.slice(colon + 1).replace(/^0+(?=.)/, '');
    port = /^\d{1,9}$/.test(digits) && Number(digits) > 0 ? Number(digits) : -1;
    userinfoHost = authority.slice(0, colon);
  }
  if (port < 0 || port > 65535) return 'Wrong port number specified in the URL';
  const at = userinfoHost.lastIndexOf('@');
  const userinfo = at < 0 ? '' : userinfoHost.slice(0, at);
  const host = userinfoHost.slice(at + 1).toLowerCase();
  const isIpv6 = host.startsWith('[') && host.endsWith(']');
  if (isIpv6 && isIP(host.slice(1, -1)) !== 6) return 'Wrong IPv6 address specified in the URL';
  if (host === '') return 'URL host is empty';
  if (host === '.') return 'Host is invalid';
  let query = rest.slice(authorityEnd).replace(/[ \t\r\n\v\0]+$/, '');
  if (!query.startsWith('/')) query = `/${query}`;
  query = query.replace(/[\0- ]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  if (!isIpv6) {
    const hostError = checkUrlPart(host, 'host', false) ?? checkUrlPart(userinfo, 'userinfo', true);
    if (hostError) return hostError;
  }
  return { protocol, userinfo, host, isIpv6, specifiedPort: port, query };
}

/** parse_url check_url_part: RFC 3986 characters, valid percent escapes, and any non-ASCII. */
function checkUrlPart(part: string, name: string, allowColon: boolean): string | undefined {
  for (let i = 0; i < part.length; i++) {
    const c = part.charAt(i);
    if (/^[A-Za-z0-9.\-_!$,~*'();&+=]$/.test(c) || (allowColon && c === ':') || c.charCodeAt(0) >= 128) continue;
    if (c === '%') {
      if (/^[0-9A-Fa-f]{2}$/.test(part.slice(i + 1, i + 3))) {
        i += 2;
        continue;
      }
      return `Wrong percent-encoded symbol in URL ${name}`;
    }
    return `Disallowed character in URL ${name}`;
  }
  return undefined;
}

type LinkCheck = { readonly url: string; readonly error?: undefined } | { readonly url?: undefined; readonly error: string };

/** td LinkManager.cpp check_link(_impl): http(s) URLs need a dotted host; tg:, ton: and tonsite: links are allowed too. */
function checkLink(link: string): LinkCheck {
  const invalid = (reason: string): LinkCheck => ({ error: `URL '${link}' is invalid: ${reason}` });
  const scheme = ['tg', 'ton', 'tonsite'].find((name) => link.toLowerCase().startsWith(`${name}:`));
  let rest = scheme ? link.slice(scheme.length + 1) : link;
  if (scheme && rest.startsWith('//')) rest = rest.slice(2);
  const parsed = parseUrl(rest);
  if (typeof parsed === 'string') return invalid(parsed);
  if (scheme) {
    if (rest.toLowerCase().startsWith('http://') || parsed.protocol === 'https' || parsed.userinfo !== '' || parsed.specifiedPort !== 0 || parsed.isIpv6) {
      return invalid(scheme === 'tg' ? 'Wrong tg URL' : 'Wrong ton URL');
    }
    const hostCharacters = scheme === 'tonsite' ? /^[A-Za-z0-9_.-]+$/ : /^[A-Za-z0-9_-]+$/;
    if (!hostCharacters.test(parsed.host)) return invalid('Unallowed characters in URL host');
    const query = parsed.query.startsWith('/?') ? parsed.query.slice(1) : parsed.query;
    return { url: `${scheme}://${parsed.host}${query}` };
  }
  if (!parsed.host.includes('.') && !parsed.isIpv6) return invalid('Wrong HTTP URL');
  // HttpUrl::get_url.
  const userinfo = parsed.userinfo === '' ? '' : `${parsed.userinfo}@`;
  const port = parsed.specifiedPort > 0 ? `:${parsed.specifiedPort}` : '';
  return { url: `${parsed.protocol}://${userinfo}${parsed.host}${port}${parsed.query}` };
}

function indexOfAny(text: string, characters: string): number {
  for (let i = 0; i < text.length; i++) if (characters.includes(text.charAt(i))) return i;
  return text.length;
}

function isPrivateHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (isIP(bare) === 6) return bare === '::1' || /^(?:f[cd]|fe[89ab])/.test(bare);
  if (isIP(bare) !== 4) return false;
  const [a = 0, b = 0] = bare.split('.').map(Number);
  return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168);
}

// ---- JSON shapes ----

/** Client.cpp JsonChat: private chats for positive ids, supergroups for -100…, basic groups otherwise. */
function chatJson(chatId: number): Record<string, unknown> {
  if (chatId > 0) return { id: chatId, first_name: 'Crateflow tester', type: 'private' };
  if (chatId <= -1_000_000_000_000) return { id: chatId, title: 'Crateflow', type: 'supergroup' };
  return { id: chatId, title: 'Crateflow', type: 'group' };
}

/** Client.cpp JsonPhotoSize: a photo comes back in several sizes, each with its own file_id. */
function photoSizes(message: SentMessage): Record<string, unknown>[] {
  return [[90, 90, 1_234], [320, 320, 15_678], [800, 800, 61_234]].map(([width = 0, height = 0, size = 0]) => {
    const unique = Buffer.from(`${message.chat_id}/${message.message_id}/${width}`).toString('base64url');
    return { file_id: `AgACAgQAAxkDAAI${unique}`, file_unique_id: `AQAD${unique.slice(0, 12)}`, file_size: size, width, height };
  });
}
