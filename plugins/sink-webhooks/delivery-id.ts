import { createHash } from 'node:crypto';

/**
 * The id of the delivery of one event to one webhook. Derived, not random, so an event handed over twice
 * (at-least-once from the event bus, e.g. after a crash) maps to the same stored delivery instead of a second
 * one; it is also the `X-Webhook-Delivery` and `webhook-id` value receivers deduplicate on.
 */
export function deliveryId(eventId: string, webhookName: string): string {
  const digest = createHash('sha256').update(`${eventId}\u0000${webhookName}`, 'utf8').digest('hex');
  return `d_${digest.slice(0, 32)}`;
}
