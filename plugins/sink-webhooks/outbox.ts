import type { Clock, HttpClient, Logger } from '@crateflow/sdk';
import { withAttempt, type StoredDelivery } from './delivery-record.js';
import type { DeliveryStore } from './delivery-store.js';
import type { GoneReceivers } from './gone-receivers.js';
import { retryDelayMs } from './retry-schedule.js';
import { sendAttempt } from './send-attempt.js';
import type { WebhookConfig } from './webhook-config.schema.js';

export interface OutboxOptions {
  store: DeliveryStore;
  http: HttpClient;
  clock: Clock;
  log: Logger;
  /** The configured webhooks by name; attempts always use the current url, secret, timeout and retry. */
  webhooks: ReadonlyMap<string, WebhookConfig>;
  /** Attempts in flight per webhook at most; the rest wait in that webhook's lane. */
  concurrencyPerTarget: number;
  /** Webhooks whose receiver answered 410 Gone: nothing more is sent to them. */
  gone: GoneReceivers;
  /** What an attempt sends, from the stored body: adds what must not be stored (a decision link). */
  finalBody?: (record: StoredDelivery, body: string) => Promise<string>;
}

/** One webhook's queue of deliveries that are due, and how many of its attempts are in flight. */
interface Lane {
  ready: string[];
  active: number;
}

// How often the log is pruned by age.
const PRUNE_INTERVAL_MS = 3600_000;

/**
 * Sends stored deliveries. Each webhook has its own lane with a concurrency limit, so a slow or dead target
 * only ever holds its own slots and never delays another webhook, and a burst of events queues instead of
 * opening connections without bound. Retries are timers on the plugin's clock; their due times are stored, so
 * `resume()` after a restart picks every pending delivery up again on schedule.
 */
export class Outbox {
  private readonly lanes = new Map<string, Lane>();
  /** Deliveries this outbox holds (ready, scheduled or in flight), so none is queued twice. */
  private readonly tracked = new Set<string>();
  private readonly sending = new Set<string>();
  private readonly timers = new Map<string, () => void>();
  private readonly work = new Set<Promise<void>>();
  private readonly shutdown = new AbortController();
  private cancelPruneTimer: (() => void) | undefined;
  private stopped = false;

  constructor(private readonly options: OutboxOptions) {}

  /** Takes every pending delivery from storage (after a restart) and starts the periodic pruning. */
  resume(): void {
    let resumed = 0;
    for (const record of this.options.store.pending()) {
      if (this.tracked.has(record.id)) continue;
      this.track(record);
      resumed++;
    }
    if (resumed > 0) this.options.log.info({ deliveries: resumed }, 'resuming pending webhook deliveries');
    this.prune();
  }

  /** Starts tracking a stored pending delivery: due now, or at its stored retry time. */
  track(record: StoredDelivery): void {
    if (this.stopped || this.tracked.has(record.id) || record.status !== 'pending') return;
    this.tracked.add(record.id);
    const wait = (record.next_attempt_at ?? 0) - this.options.clock.now();
    if (wait > 0) this.scheduleAttempt(record.id, record.webhook, wait);
    else this.makeReady(record.id, record.webhook);
  }

  isSending(id: string): boolean {
    return this.sending.has(id);
  }

  /** Makes a tracked delivery due now (a redelivery), cancelling its retry timer; tracks it when untracked. */
  sendNow(record: StoredDelivery): void {
    const cancel = this.timers.get(record.id);
    if (cancel) {
      cancel();
      this.timers.delete(record.id);
      this.makeReady(record.id, record.webhook);
      return;
    }
    this.track(record);
  }

  /** Stops every timer, aborts attempts in flight (they stay pending and resume after a restart) and waits. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
    this.cancelPruneTimer?.();
    this.shutdown.abort();
    await Promise.all([...this.work]);
  }

  private scheduleAttempt(id: string, webhook: string, delayMs: number): void {
    const cancel = this.options.clock.schedule(delayMs, () => {
      this.timers.delete(id);
      this.makeReady(id, webhook);
    });
    this.timers.set(id, cancel);
  }

  private makeReady(id: string, webhook: string): void {
    if (this.stopped) return;
    const lane = this.lanes.get(webhook) ?? { ready: [], active: 0 };
    this.lanes.set(webhook, lane);
    lane.ready.push(id);
    this.pump(webhook, lane);
  }

  private pump(webhook: string, lane: Lane): void {
    while (!this.stopped && lane.active < this.options.concurrencyPerTarget && lane.ready.length > 0) {
      const id = lane.ready.shift();
      if (id === undefined) break;
      lane.active++;
      const job = this.attempt(id, () => {
        lane.active--;
        this.pump(webhook, lane);
      });
      this.work.add(job);
      void job.finally(() => this.work.delete(job));
    }
  }

  /** One attempt of one delivery. `release` frees the lane slot as soon as the answer is in. */
  private async attempt(id: string, release: () => void): Promise<void> {
    const { store, clock, log } = this.options;
    const record = store.get(id);
    if (!record || record.status !== 'pending') {
      this.tracked.delete(id);
      release();
      return;
    }
    const webhook = this.options.webhooks.get(record.webhook);
    const body = store.body(record);
    if (!webhook || !webhook.enabled || body === undefined) {
      release();
      const why = !webhook
        ? `webhook "${record.webhook}" is no longer configured`
        : !webhook.enabled
          ? `webhook "${record.webhook}" is disabled`
          : 'the stored payload is missing';
      await this.finish(withAttempt(record, attemptEntry(clock.now(), null, why, 0, null), { status: 'failed', next_attempt_at: null }));
      return;
    }
    const goneSince = this.options.gone.since(webhook.name, webhook.url);
    if (goneSince !== undefined) {
      release();
      const why = `not sent: the receiver answered 410 Gone at ${goneSince} (redeliver, or change the url, to send again)`;
      await this.finish(withAttempt(record, attemptEntry(clock.now(), null, why, 0, null), { status: 'failed', next_attempt_at: null }));
      return;
    }
    this.sending.add(id);
    const sent = this.options.finalBody ? await this.options.finalBody(record, body) : body;
    const startedAt = clock.now();
    const result = await sendAttempt(this.options.http, {
      target: { url: webhook.url, secret: webhook.secret, timeout_ms: webhook.timeout_ms },
      body: sent,
      event: record.event,
      deliveryId: record.id,
      now: startedAt,
      signal: this.shutdown.signal,
    });
    this.sending.delete(id);
    release();
    if (result.aborted || this.stopped) {
      // Shutting down: the attempt does not count; the delivery stays pending and resumes after the restart.
      this.tracked.delete(id);
      return;
    }
    // The retry budget counts attempts since the delivery was last (re)queued; read the record again, since a
    // redelivery may have reset it while this attempt was on the wire.
    const current = store.get(id) ?? record;
    const round = current.round_attempts + 1;
    // 410 Gone is the receiver ending the subscription: retrying cannot succeed, whatever the budget says.
    const delay = result.ok || result.gone ? undefined : retryDelayMs(round, webhook.retry, result.retry_after_ms);
    const finishedAt = clock.now();
    const nextAt = delay === undefined ? null : finishedAt + delay;
    const entry = attemptEntry(startedAt, result.status_code, result.error, result.duration_ms, nextAt);
    if (result.ok) {
      await this.finish(withAttempt(current, entry, { status: 'delivered', next_attempt_at: null, round_attempts: round }));
    } else if (result.gone) {
      log.warn({ webhook: webhook.name, delivery: id }, 'webhook receiver answered 410 Gone; flagging the webhook and sending it nothing more');
      await this.markGone(webhook, entry.at);
      await this.finish(withAttempt(current, entry, { status: 'failed', next_attempt_at: null, round_attempts: round }));
    } else if (nextAt === null) {
      log.warn({ webhook: webhook.name, delivery: id, error: result.error, attempts: round }, 'webhook delivery failed; no retries left');
      await this.finish(withAttempt(current, entry, { status: 'failed', next_attempt_at: null, round_attempts: round }));
    } else {
      log.warn({ webhook: webhook.name, delivery: id, error: result.error, retry_in_ms: delay }, 'webhook delivery failed; retrying');
      const next = withAttempt(current, entry, { next_attempt_at: nextAt, round_attempts: round });
      if (delay !== undefined) this.scheduleAttempt(id, webhook.name, delay);
      await this.save(next);
    }
  }

  private async markGone(webhook: WebhookConfig, at: string): Promise<void> {
    try {
      await this.options.gone.mark(webhook.name, webhook.url, at);
    } catch (err: unknown) {
      // Only the flag could not be stored: the delivery is still final; the next event will try once and
      // meet the same 410.
      this.options.log.error({ err, webhook: webhook.name }, 'could not record that a webhook receiver is gone');
    }
  }

  private async finish(record: StoredDelivery): Promise<void> {
    this.tracked.delete(record.id);
    await this.save(record);
  }

  private async save(record: StoredDelivery): Promise<void> {
    try {
      // Lazily: the attempt's record adds no disk flush of its own (the next change's commit carries it).
      await this.options.store.put(record, { lazy: true });
    } catch (err: unknown) {
      // The attempt happened; only its record could not be written. Worst case after a crash the delivery is
      // sent again, which at-least-once delivery allows (receivers deduplicate on X-Webhook-Delivery).
      this.options.log.error({ err, delivery: record.id }, 'could not record a webhook attempt');
    }
  }

  // Count trimming happens as deliveries finish (DeliveryStore.put); this catches age, hourly.
  private prune(): void {
    this.cancelPruneTimer?.();
    this.cancelPruneTimer = this.stopped ? undefined : this.options.clock.schedule(PRUNE_INTERVAL_MS, () => this.prune());
    this.options.store.prune(this.options.clock.now()).catch((err: unknown) => {
      // Pruning only bounds the log's size; the next run tries again.
      this.options.log.warn({ err }, 'could not prune the webhook delivery log');
    });
  }
}

function attemptEntry(at: number, statusCode: number | null, error: string | null, durationMs: number, nextAt: number | null) {
  return {
    at: new Date(at).toISOString(),
    status_code: statusCode,
    error,
    duration_ms: durationMs,
    next_retry_at: nextAt === null ? null : new Date(nextAt).toISOString(),
  };
}
