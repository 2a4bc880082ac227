import type { Notification } from '@crateflow/sdk';

/** Bot API limits (docs, sendPhoto and sendMessage): a caption of 1024 characters, a text of 4096, after parsing. */
const CAPTION_CHARS = 1024;
const TEXT_CHARS = 4096;

export type InlineButton = { text: string; callback_data: string } | { text: string; url: string };

/** What `send()` posts: a photo with a caption when the item has a cover, else a text message. */
export interface TelegramPost {
  method: 'sendPhoto' | 'sendMessage';
  params: Record<string, unknown>;
}

/**
 * callback_data of a decision button: `a:` or `r:` and the link's token (43 characters), 45 bytes of the 64 the Bot
 * API allows. The token is all a press needs: the server checks it as it checks a link that is opened.
 */
export function callbackData(action: 'approve' | 'reject', decideUrl: string): string | undefined {
  const token = /\/decide\/([A-Za-z0-9_-]{43})$/.exec(decideUrl)?.[1];
  return token === undefined ? undefined : `${action === 'approve' ? 'a' : 'r'}:${token}`;
}

/** The action and token a pressed button carries, or undefined for data that is not ours. */
export function parseCallbackData(data: unknown): { action: 'approve' | 'reject'; token: string } | undefined {
  const match = typeof data === 'string' ? /^([ar]):([A-Za-z0-9_-]{43})$/.exec(data) : null;
  if (!match?.[1] || !match[2]) return undefined;
  return { action: match[1] === 'a' ? 'approve' : 'reject', token: match[2] };
}

/** A notification as a Telegram post to one chat: HTML with every text escaped, buttons for an item. */
export function telegramPost(note: Notification, chatId: number): TelegramPost {
  const cover = note.kind === 'item' ? note.items[0]?.cover_url : undefined;
  const photo = cover !== undefined && /^https?:\/\//.test(cover) ? cover : undefined;
  const limit = photo ? CAPTION_CHARS : TEXT_CHARS;
  const title = `<b>${escapeHtml(cut(note.title, 300))}</b>`;
  const body = escapeHtml(cut(note.text, limit - 400));
  const html = `${title}\n${body}`;
  const rows: InlineButton[][] = [];
  if (note.decide_url !== undefined) {
    const approve = callbackData('approve', note.decide_url);
    const reject = callbackData('reject', note.decide_url);
    if (approve && reject) rows.push([{ text: 'Approve', callback_data: approve }, { text: 'Reject', callback_data: reject }]);
  }
  // Open goes to the queue, behind sign-in, not to the decision link: a message forwarded out of the configured
  // chats must not carry a way to decide.
  if (note.open_url !== undefined && buttonUrlAllowed(note.open_url)) rows.push([{ text: note.kind === 'item' ? 'Open' : 'Open the queue', url: note.open_url }]);
  const markup = rows.length > 0 ? { reply_markup: { inline_keyboard: rows } } : {};
  return photo
    ? { method: 'sendPhoto', params: { chat_id: chatId, photo, caption: html, parse_mode: 'HTML', ...markup } }
    : { method: 'sendMessage', params: { chat_id: chatId, text: html, parse_mode: 'HTML', link_preview_options: { is_disabled: true }, ...markup } };
}

/**
 * Whether Telegram takes `url` for a button: http(s) with a host that has a dot (LinkManager.cpp check_link refuses
 * `http://localhost`, `http://nas:8080`, and the whole message with it).
 */
export function buttonUrlAllowed(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const { protocol, hostname } = new URL(url);
  return (protocol === 'https:' || protocol === 'http:') && hostname.includes('.');
}

/** The Bot API's HTML mode knows only these three entities for text: everything else is written as itself. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** At most `chars` characters (whole code points), with an ellipsis when cut. */
export function cut(text: string, chars: number): string {
  const points = Array.from(text);
  return points.length <= chars ? text : `${points.slice(0, chars - 1).join('')}…`;
}
