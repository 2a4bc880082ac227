import type { DecisionLinks, DecisionOutcome, Logger } from '@crateflow/sdk';
import type { TelegramApi } from './telegram-api.js';
import { TelegramError } from './telegram-api.js';
import type { TelegramConfig } from './telegram-config.schema.js';
import { cut, escapeHtml, parseCallbackData } from './telegram-message.js';

/** The parts of a Bot API CallbackQuery this plugin reads. */
export interface CallbackQuery {
  id: string;
  from: { id: number; username?: string; first_name?: string };
  message?: { message_id: number; chat: { id: number }; text?: string; caption?: string };
  data?: string;
}

interface PressDeps {
  api: TelegramApi;
  config: TelegramConfig;
  log: Logger;
  decisions: DecisionLinks | undefined;
  signal: AbortSignal;
}

/**
 * One press of Approve or Reject: only in a configured chat; decided with the item's link, as the person who
 * pressed (`telegram:<username>`); answered (Telegram shows the answer as a toast and stops the button's spinner);
 * and the message edited to say the outcome, without its buttons, for everyone in the chat.
 */
export async function handleButtonPress(query: CallbackQuery, deps: PressDeps): Promise<void> {
  const { api, config, log, signal } = deps;
  const answer = (text: string, alert = false) =>
    api.call('answerCallbackQuery', { callback_query_id: query.id, text, show_alert: alert }, { signal }).catch((err: unknown) => {
      log.warn({ error: err instanceof Error ? err.message : String(err) }, 'could not answer a Telegram button press');
    });
  const message = query.message;
  if (!message || !config.chat_ids.includes(message.chat.id)) {
    log.warn({ chat: message?.chat.id, user: query.from.id }, 'a Telegram button was pressed in a chat that is not in chat_ids; nothing was decided');
    await answer('This chat may not decide.', true);
    return;
  }
  const pressed = parseCallbackData(query.data);
  if (!pressed || !deps.decisions) {
    await answer('This button does not decide anything.');
    return;
  }
  const who = `telegram:${(query.from.username ?? query.from.first_name ?? String(query.from.id)).slice(0, 64)}`;
  let outcome: DecisionOutcome;
  try {
    outcome = await deps.decisions.decide(pressed.token, pressed.action, who);
  } catch (err: unknown) {
    log.error({ error: err instanceof Error ? err.message : String(err) }, 'a Telegram button press could not be decided');
    await answer('Could not decide right now; try again in a moment.', true);
    return;
  }
  const line = outcomeLine(outcome);
  await answer(line.slice(0, 200));
  // The plain text is cut before it is escaped, so the limit is kept and no entity or tag is cut in two.
  const limit = (message.caption !== undefined ? 1024 : 4096) - line.length - 4;
  const edited = `${escapeHtml(cut(message.caption ?? message.text ?? '', limit))}\n\n<b>${escapeHtml(line)}</b>`;
  const target = { chat_id: message.chat.id, message_id: message.message_id, parse_mode: 'HTML', reply_markup: { inline_keyboard: [] } };
  const edit = message.caption !== undefined ? api.call('editMessageCaption', { ...target, caption: edited }, { signal }) : api.call('editMessageText', { ...target, text: edited }, { signal });
  await edit.catch((err: unknown) => {
    // Pressed twice before the first edit landed: the message already says it.
    if (err instanceof TelegramError && err.description.includes('message is not modified')) return;
    log.warn({ error: err instanceof Error ? err.message : String(err) }, 'could not edit the Telegram message after a decision');
  });
}

function outcomeLine(outcome: DecisionOutcome): string {
  if (outcome.ok) return `${outcome.status === 'approved' ? 'Approved' : 'Rejected'} by ${outcome.decided_by}`;
  const by = outcome.decided_by === undefined ? '' : ` by ${outcome.decided_by}`;
  const state = outcome.status === 'approved' || outcome.status === 'rejected' ? ` It was ${outcome.status}${by}.` : '';
  switch (outcome.reason) {
    case 'used':
    case 'decided':
      return `Already decided.${state}`;
    case 'expired':
      return `This link has expired.${state}`;
    case 'revoked':
      return `This link was revoked.${state}`;
    case 'gone':
      return 'This album is no longer in the queue.';
    case 'unknown':
      return 'This button is no longer known.';
  }
}
