import type { Notification } from '@crateflow/sdk';

/** ntfy's limit on a message body (`message-size-limit`, 4096 bytes by default); longer text is cut to fit. */
const MESSAGE_BYTES = 4000;
/** ntfy keeps at most three action buttons per message. */
const MAX_ACTIONS = 3;

export type NtfyAction =
  | { action: 'view'; label: string; url: string; clear?: boolean }
  | { action: 'http'; label: string; url: string; method: 'POST'; headers: Record<string, string>; body: string; clear: boolean };

/** The JSON publish body (ntfy docs, "Publish as JSON"): posted to the server's root URL. */
export interface NtfyPublish {
  topic: string;
  title: string;
  message: string;
  priority: number;
  tags: string[];
  click?: string;
  attach?: string;
  actions?: NtfyAction[];
}

/**
 * A notification as ntfy shows it. A candidate gets Approve and Reject as `http` actions, which the phone sends
 * itself in the background (POST to the decision link, form-encoded, no page opens), and Open, which shows the
 * decision page (it decides nothing by itself).
 */
export function ntfyMessage(note: Notification, topic: string, priority: number): NtfyPublish {
  const cover = note.kind === 'item' ? note.items[0]?.cover_url : undefined;
  const actions: NtfyAction[] = [];
  if (note.decide_url !== undefined) {
    const decide = (label: string, action: string): NtfyAction => ({
      action: 'http', label, url: note.decide_url ?? '', method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' }, body: `action=${action}`, clear: true,
    });
    actions.push(decide('Approve', 'approve'), decide('Reject', 'reject'), { action: 'view', label: 'Open', url: note.decide_url });
  } else if (note.open_url !== undefined) {
    actions.push({ action: 'view', label: 'Open', url: note.open_url });
  }
  return {
    topic,
    title: note.title,
    message: fit(note.text, MESSAGE_BYTES),
    priority: note.kind === 'event' ? Math.min(priority, 3) : priority,
    tags: [note.kind === 'event' ? (note.event === 'download_completed' ? 'arrow_down' : 'white_check_mark') : 'cd'],
    ...(note.open_url !== undefined ? { click: note.decide_url ?? note.open_url } : {}),
    ...(cover !== undefined && /^https?:\/\//.test(cover) ? { attach: cover } : {}),
    ...(actions.length > 0 ? { actions: actions.slice(0, MAX_ACTIONS) } : {}),
  };
}

/** `text` cut to at most `bytes` UTF-8 bytes, with an ellipsis when cut (a character cut in two is dropped). */
function fit(text: string, bytes: number): string {
  const encoded = Buffer.from(text, 'utf8');
  if (encoded.length <= bytes) return text;
  return `${new TextDecoder().decode(encoded.subarray(0, bytes - 3)).replace(/\uFFFD$/, '')}…`;
}
