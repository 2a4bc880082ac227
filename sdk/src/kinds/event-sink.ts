import type { DomainEvent, EventType } from '../records.js';
import type { PluginLifecycle } from './plugin-lifecycle.js';
import type { WebhookAdmin } from './webhook-admin.js';

/**
 * An event sink (kind `event-sink`): receives every domain event after it was committed.
 *
 * The server calls `deliver()` outside any request, in event order, and retries with backoff when it throws,
 * so a failing sink never fails a user's request. Delivery to a sink is at-least-once: after a crash the same
 * event (same `id`) may arrive again, so make `deliver()` idempotent on `event.id`.
 *
 * @example
 * create: ({ http, config }) => ({
 *   async deliver(event) {
 *     await http.request({ url: config.topic_url, method: 'POST', body: `${event.type}: ${event.data.artist}` });
 *   },
 * })
 */
export interface EventSink extends PluginLifecycle {
  deliver(event: DomainEvent): Promise<void>;
  /**
   * Optional: whether this sink wants events of `type` at all. The server then neither journals nor hands over
   * events no sink wants, so they cost no extra disk flush. Leave it out to receive everything.
   *
   * @example
   * accepts: (type) => type === 'download_completed',
   */
  accepts?(type: EventType): boolean;
  /**
   * Optional, added to API version 1 after sdk 1.0.0 (feature-detected): keep your own outbox in the same
   * transaction as the change. The server calls `record()` synchronously inside the transaction that commits the
   * change that fired `event`, before it commits. Writes to `ctx.storage` started during the call (`set`, `delete`;
   * do not await them inside) commit in that transaction, so after a crash the change and your record of its event
   * are on disk together or not at all. Their promises settle once the transaction is durable (or reject if it is
   * undone). An event you record is not handed to `deliver()`: send it from your own worker once the writes settle.
   * Keep it fast and free of I/O besides storage; if it throws, its writes are undone and the event goes to
   * `deliver()` as usual.
   *
   * @example
   * record: (event) => {
   *   void ctx.storage.set(`outbox/${event.id}`, { type: event.type }).then(() => worker.wake(), () => undefined);
   * },
   */
  record?(event: DomainEvent): void;
  /**
   * Optional capability, added to API version 1 after sdk 1.0.0 (feature-detected): the sink delivers events
   * to HTTP endpoints an operator configures and keeps a delivery log, and the server serves
   * `/api/v1/webhooks/*` from it (list, test, delivery log, redeliver). The server finds it by this member,
   * whatever the sink is called, and gives every call a deadline. Most sinks leave it out. See
   * {@link WebhookAdmin} for which sink serves when several offer it.
   *
   * @example
   * create: (ctx) => ({ deliver, webhookAdmin: { targets, test, deliveries, redeliver } })
   */
  webhookAdmin?: WebhookAdmin;
  /**
   * @deprecated Declare {@link EventSink.webhookAdmin}, whose name says what it serves. The server still
   * serves the webhooks API from `admin` when a sink has no `webhookAdmin`, so plugins written against sdk
   * 1.0.0 keep working; `admin` goes away in API version 2.
   */
  admin?: WebhookAdmin;
}
