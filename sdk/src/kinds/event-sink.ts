import type { DomainEvent } from '../records.js';
import type { PluginLifecycle } from './plugin-lifecycle.js';

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
}
