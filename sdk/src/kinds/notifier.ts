import type { EventType } from '../records.js';
import type { PluginLifecycle } from './plugin-lifecycle.js';

/** One album or track waiting for a decision, as a notification shows it. */
export interface NotifiedItem {
  /** The queue item id. */
  id: string;
  artist: string;
  album?: string;
  title?: string;
  year?: number;
  /** Where it was proposed from (a source's name, `api`). */
  source: string;
  /** Why it was proposed, as short sentences ("Similar to Low"). */
  reasons: string[];
  cover_url?: string;
}

/**
 * A message for a person, composed by the server; a notifier only renders and sends it (sdk 1.5).
 *  - `item`: one candidate, with `decide_url` when the server issues decision links (`server.public_url`): POST
 *    `action=approve` or `action=reject` to it (form-encoded, or JSON `{"action": …}`) to decide, once.
 *  - `digest`: several candidates at once ("12 new albums — top 3: …"), no buttons; `open_url` lists them.
 *  - `event`: something that happened (`download_completed`, `wishlist_removed`); with `recipient`, news of one
 *    person's request (`queue_rejected`: declined; `queue_approved` or `wishlist_removed`: in the library).
 * Every text is plain (no markup); escape it for the channel.
 *
 * @example
 * { kind: 'item', title: 'Low – Double Negative', text: 'Similar to Slowdive', items: [item],
 *   decide_url: 'https://music.example.org/decide/…', open_url: 'https://music.example.org/queue' }
 */
export interface Notification {
  /** The same for every attempt to send this message: a notifier that sends to several chats skips those done. */
  id: string;
  kind: 'item' | 'digest' | 'event';
  /** What happened, for an `event` (and `queue_added` for the others). */
  event: EventType;
  title: string;
  text: string;
  /** The items it is about: one for `item`, the top ones for `digest` (the digest's count is in `total`). */
  items: NotifiedItem[];
  /** `digest`: how many candidates arrived, of which `items` are the best scored. */
  total?: number;
  /** `item`, with `server.public_url`: the decision link. */
  decide_url?: string;
  /** When the decision link stops working (ISO 8601). */
  decide_expires_at?: string;
  /** Where a tap on the message goes (the queue page), with `server.public_url`. */
  open_url?: string;
  /**
   * A message for one person (sdk 1.6): their request was declined, or reached the library. Send it to this address
   * on the channel (an ntfy topic, a Telegram chat id) instead of the channel's own audience; throw an Error when the
   * address is not one the channel can reach.
   */
  recipient?: string;
}

/**
 * A notifier (kind `notifier`, sdk 1.5): shows people what waits for them where they are (ntfy, Telegram, …). The
 * server decides what to send and when (per-item messages, hourly digests), stores it until it is sent, retries a
 * failed send with backoff and never sends twice what was acknowledged. `send()` resolves once the channel
 * accepted the message; throw `RetryLaterError` (with `retryAfterMs` when the service says) to be called again later,
 * any other error to be retried with backoff as well.
 *
 * @example
 * create: ({ config, http }) => ({
 *   async send(note) { await http.request({ method: 'POST', url: config.url, json: { title: note.title, message: note.text } }); },
 * })
 */
export interface Notifier extends PluginLifecycle {
  send(notification: Notification): Promise<void>;
}
