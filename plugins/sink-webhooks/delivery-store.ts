import type { Logger, PluginStorage, WebhookDeliveryPage, WebhookDeliveryQuery } from '@crateflow/sdk';
import { toDeliveryView, type StoredDelivery } from './delivery-record.js';

const DELIVERY = 'delivery/';
const PAYLOAD = 'payload/';

/** How much finished history the delivery log keeps. Pending deliveries are never pruned. */
export interface RetentionPolicy {
  maxFinished: number;
  maxAgeMs: number;
}

export const DEFAULT_RETENTION: RetentionPolicy = { maxFinished: 1000, maxAgeMs: 7 * 24 * 3600_000 };

// Trim by count only once this many finished deliveries are over the limit, so trimming is one batch, not one
// delete per finished delivery.
const TRIM_SLACK = 50;

/**
 * The outbox and delivery log in the plugin's storage: one key per delivery (`delivery/<id>`) and one per event
 * for the exact body bytes (`payload/<event id>`), shared by that event's deliveries to every webhook, so the
 * file (rewritten whole on every commit) stays small. Every write resolves once it is on disk; the storage
 * group-commits, so a burst of deliveries costs a few file writes, not one each.
 */
export class DeliveryStore {
  /**
   * The stored deliveries and payloads, mirrored in memory (written through on every change), so the hot path
   * reads plain Maps instead of building a storage key per lookup.
   */
  private readonly records = new Map<string, StoredDelivery>();
  private readonly payloads = new Map<string, string>();
  /** Finished delivery ids in finish order, oldest first (an ordered set: re-finishing moves an id to the end). */
  private readonly finished = new Set<string>();
  /** How many stored deliveries use each event's payload. */
  private readonly payloadUsers = new Map<string, number>();

  constructor(
    private readonly storage: PluginStorage,
    private readonly log: Logger,
    private readonly retention: RetentionPolicy = DEFAULT_RETENTION,
  ) {
    for (const [key, body] of storage.entries<string>(PAYLOAD)) this.payloads.set(key.slice(PAYLOAD.length), body);
    const done: StoredDelivery[] = [];
    for (const [, record] of storage.entries<StoredDelivery>(DELIVERY)) {
      this.records.set(record.id, record);
      this.payloadUsers.set(record.event_id, (this.payloadUsers.get(record.event_id) ?? 0) + 1);
      if (record.status !== 'pending') done.push(record);
    }
    done.sort((a, b) => compare(a.updated_at, b.updated_at));
    for (const record of done) this.finished.add(record.id);
  }

  get(id: string): StoredDelivery | undefined {
    return this.records.get(id);
  }

  /** The exact bytes to send for a delivery. */
  body(record: StoredDelivery): string | undefined {
    return this.payloads.get(record.event_id);
  }

  /** Stores a new delivery and, when it is the event's first, the event's body. */
  create(record: StoredDelivery, body: string): Promise<void> {
    const writes: Promise<void>[] = [];
    const firstOfEvent = !this.payloads.has(record.event_id);
    if (firstOfEvent) {
      this.payloads.set(record.event_id, body);
      writes.push(this.storage.set(PAYLOAD + record.event_id, body));
    }
    const isNew = !this.records.has(record.id);
    if (isNew) this.payloadUsers.set(record.event_id, (this.payloadUsers.get(record.event_id) ?? 0) + 1);
    this.records.set(record.id, record);
    writes.push(this.storage.set(DELIVERY + record.id, record));
    return Promise.all(writes).then(
      () => undefined,
      (err: unknown) => {
        // Not stored (the change it was recorded in was undone, or the disk refused it): memory forgets it too.
        if (isNew && this.records.get(record.id) === record) {
          this.records.delete(record.id);
          const users = (this.payloadUsers.get(record.event_id) ?? 1) - 1;
          if (users > 0) this.payloadUsers.set(record.event_id, users);
          else this.payloadUsers.delete(record.event_id);
        }
        if (firstOfEvent && !this.payloadUsers.has(record.event_id)) this.payloads.delete(record.event_id);
        throw err;
      },
    );
  }

  /**
   * Stores a changed delivery; a finished one joins the log's count, and the oldest beyond the limit go. `lazy`:
   * the record of an attempt, whose loss in a crash only means the delivery is sent again (see StorageWriteOptions).
   */
  async put(record: StoredDelivery, options: { lazy?: boolean } = {}): Promise<void> {
    this.records.set(record.id, record);
    const write = this.storage.set(DELIVERY + record.id, record, options);
    this.finished.delete(record.id);
    if (record.status !== 'pending') this.finished.add(record.id);
    const excess = this.finished.size - this.retention.maxFinished;
    await Promise.all([write, excess >= TRIM_SLACK ? this.remove(this.oldestFinished(excess)) : undefined]);
  }

  /** Every delivery still waiting for an attempt, oldest first. */
  pending(): StoredDelivery[] {
    return [...this.records.values()].filter((record) => record.status === 'pending');
  }

  /** A page of the log, newest first, filtered by webhook name and status. */
  page(query: WebhookDeliveryQuery): WebhookDeliveryPage {
    const matching = [...this.records.values()].filter(
      (record) => (query.webhook === undefined || record.webhook === query.webhook) && (query.status === undefined || record.status === query.status),
    );
    matching.reverse();
    const items = matching.slice(query.offset, query.offset + query.limit).map(toDeliveryView);
    return { items, total: matching.length, limit: query.limit, offset: query.offset };
  }

  /**
   * Removes finished deliveries older than the age limit and, beyond the count limit, the oldest finished ones,
   * so the log (and the file it lives in) stays bounded. Returns how many were removed.
   */
  async prune(now: number): Promise<number> {
    const cutoff = new Date(now - this.retention.maxAgeMs).toISOString();
    const excess = Math.max(0, this.finished.size - this.retention.maxFinished);
    const doomed = new Set(this.oldestFinished(excess));
    for (const id of this.finished) {
      const record = this.records.get(id);
      if (!record || record.updated_at < cutoff) doomed.add(id);
    }
    if (doomed.size === 0) return 0;
    await this.remove([...doomed]);
    this.log.debug({ removed: doomed.size }, 'pruned the webhook delivery log');
    return doomed.size;
  }

  private oldestFinished(count: number): string[] {
    const ids: string[] = [];
    for (const id of this.finished) {
      if (ids.length >= count) break;
      ids.push(id);
    }
    return ids;
  }

  private async remove(ids: readonly string[]): Promise<void> {
    const writes: Promise<void>[] = [];
    for (const id of ids) {
      this.finished.delete(id);
      const record = this.records.get(id);
      if (!record) continue;
      this.records.delete(id);
      writes.push(this.storage.delete(DELIVERY + id));
      const users = (this.payloadUsers.get(record.event_id) ?? 1) - 1;
      if (users > 0) {
        this.payloadUsers.set(record.event_id, users);
      } else {
        this.payloadUsers.delete(record.event_id);
        this.payloads.delete(record.event_id);
        writes.push(this.storage.delete(PAYLOAD + record.event_id));
      }
    }
    await Promise.all(writes);
  }
}

// ISO timestamps of one format order correctly as plain strings (and far faster than localeCompare).
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
