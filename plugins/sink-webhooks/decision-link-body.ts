import type { DecisionLinks, Logger } from '@crateflow/sdk';
import type { StoredDelivery } from './delivery-record.js';
import { serializePayload, type WebhookPayload } from './build-payload.js';

/**
 * Adds `decide_url` to a `queue_added` body as it is sent, never to the stored body: a link is a credential, and
 * the outbox keeps bodies for redelivery. Each attempt gets a link of its own, stored (as a hash, by the server)
 * before the body leaves, so a receiver never holds a link the server could lose in a crash. Every link of an item
 * stops working once the item is decided, so retries do not multiply what a link can do.
 */
export function withDecisionLink(links: DecisionLinks, log: Logger) {
  return async function finalBody(record: StoredDelivery, body: string): Promise<string> {
    if (record.event !== 'queue_added') return body;
    const payload = JSON.parse(body) as WebhookPayload;
    const id = payload.data.id;
    if (id === undefined) return body;
    try {
      const link = links.issue(id, 'webhook');
      await link.saved;
      return serializePayload({ ...payload, data: { ...payload.data, decide_url: link.url } });
    } catch (err: unknown) {
      // The store refused the write (full disk): the event still goes out, only without a link.
      log.warn({ err, delivery: record.id }, 'queue_added sent without decide_url: the decision link could not be stored');
      return body;
    }
  };
}
