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
