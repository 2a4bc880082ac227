import { isRetryLaterError, type Clock, type DomainEvent, type EventType, type Logger, type Notification } from '@crateflow/sdk';
import type { DecisionLinkService } from '../approvals/decision-links.js';
import type { NotificationEntry } from '../config/notification-entry.schema.js';
import { parseDuration } from '../config/parse-duration.js';
import type { EventRecorder } from '../events/event-bus.js';
import { guardPluginCall } from '../plugins/guard-plugin-call.js';
import type { LoadedPluginOf, LoadedPlugins } from '../plugins/plugin-host.js';
import type { QueueItem } from '../queue/queue-item.schema.js';
import type { QueueService } from '../queue/queue-service.js';
import type { Store } from '../storage/store.js';
import { digestNotification, eventNotification, itemNotification } from './compose-notification.js';
import { REQUEST_NEWS, requestNewsOf, requestNotification } from './request-news.js';
import { NotificationOutboxTable, type OutboxRow } from './notification-outbox-table.js';

/** A configured channel and the notifier plugin instance that sends to it. */
export interface NotificationChannel {
  entry: NotificationEntry;
  notifier: LoadedPluginOf<'notifier'>;
}

const BATCH = 50;
const FIRST_RETRY_MS = 5_000;
const MAX_RETRY_MS = 3600_000;
/** A message that failed this many times is dropped (logged): about a day of retries with the backoff above. */
const MAX_ATTEMPTS = 30;

/**
 * Tells people about what they care for, through their notifiers (ntfy, Telegram, …). Each event a channel takes is
 * written to the notification outbox in the change that fired it (an EventRecorder), and sent from there once that
 * change is on disk: at once, or with the channel's digest of new candidates at the end of its window. A send that
 * fails is retried with backoff; a sent message is removed in a change of its own, so a crash between the two
 * sends it again (at least once). A candidate decided before its message goes out is not sent at all.
 */
export class NotificationDispatcher implements EventRecorder {
  readonly name = 'notifications';
  private readonly table: NotificationOutboxTable;
  private readonly channels = new Map<string, NotificationChannel>();
  private readonly eachSources: ReadonlySet<string>;
  private cancelWake: (() => void) | undefined;
  /** Rows sent whose removal the store refused: not sent again; their removal is tried again on each pump. */
  private readonly sentNotRemoved = new Set<number>();
  /** Rows whose retry time the store refused to write, with the time they are held until. */
  private readonly heldUntil = new Map<number, number>();
  private readonly failedChannels = new Set<string>();
  private pumping: Promise<void> | undefined;
  private stopped = true;

  constructor(
    private readonly deps: {
      store: Store;
      queue: QueueService;
      links: DecisionLinkService;
      plugins: LoadedPlugins;
      clock: Clock;
      log: Logger;
      publicUrl: string | undefined;
      /** Sources whose candidates each get a message of their own (`notify: each`). */
      eachSources: readonly string[];
      sendTimeoutMs: number;
      /** Where a user hears about their own requests (a channel and who on it), if anywhere. */
      requesterTarget?: (user: string) => { channel: string; to: string } | undefined;
      /** Whether the library has the album an event is about (read inside the change that fired it). */
      inLibrary?: (data: DomainEvent['data']) => boolean;
    },
    channels: readonly NotificationChannel[],
  ) {
    this.table = new NotificationOutboxTable(deps.store);
    for (const channel of channels) if (channel.entry.enabled) this.channels.set(channel.entry.name, channel);
    this.eachSources = new Set(deps.eachSources);
  }

  accepts(type: EventType): boolean {
    if (this.channels.size > 0 && REQUEST_NEWS.has(type)) return true;
    return [...this.channels.values()].some((channel) => channel.entry.events.some((wanted) => wanted === type));
  }

  /** Inside the change that fired `event`: one outbox row per channel that takes it. */
  record(event: DomainEvent): void {
    const now = this.deps.clock.now();
    this.recordRequestNews(event, now);
    for (const { entry } of this.channels.values()) {
      if (!entry.events.some((wanted) => wanted === event.type)) continue;
      if (event.type !== 'queue_added') {
        this.table.insert({ channel: entry.name, kind: 'event', event: event.type, data: event.data, due_at: now });
        continue;
      }
      const item = event.data.id === undefined ? undefined : this.deps.queue.find(event.data.id);
      if (!item) continue;
      // An album a person added by hand or requested, or a source asked to: each candidate with its buttons.
      const each = entry.digest === 'off' || item.source === 'api' || item.requested_by !== undefined || this.eachSources.has(item.source);
      const due = each ? now : (this.table.openDigestDue(entry.name, now) ?? now + parseDuration(entry.digest));
      this.table.insert({ channel: entry.name, kind: each ? 'item' : 'digest', event: event.type, data: event.data, due_at: due });
    }
  }

  /**
   * A requester hears, on their own channel, that their request was declined or reached the library (issue #31),
   * whatever the channel's `events` list: it is their news, not the household's.
   */
  private recordRequestNews(event: DomainEvent, now: number): void {
    const requester = event.data.requested_by;
    if (requester === undefined || !REQUEST_NEWS.has(event.type)) return;
    const news = requestNewsOf(event, this.deps.inLibrary?.(event.data) ?? false);
    if (!news) return;
    const target = this.deps.requesterTarget?.(requester);
    if (!target || !this.channels.has(target.channel)) return;
    this.table.insert({ channel: target.channel, kind: 'event', event: event.type, data: event.data, due_at: now, recipient: target.to });
  }

  /**
   * Sends what is due, and from then on whatever becomes due (call once the app serves). What was waiting for a
   * channel that is gone from the config, or disabled, is forgotten first: it would otherwise wait for ever, or
   * reach a different channel that later takes the name.
   */
  start(): void {
    this.stopped = false;
    this.deps.store
      .change(() => this.table.removeChannelsOtherThan([...this.channels.keys()]))
      .then(
        (removed) => {
          if (removed > 0) this.deps.log.info({ removed }, 'forgot notifications for channels that are no longer configured');
        },
        (err: unknown) => this.deps.log.error({ err }, 'could not forget the notifications of removed channels'),
      )
      .finally(() => this.wake());
  }

  /** Called after each commit (the event bus's listeners run then): sends what it made due. */
  wake(): void {
    if (this.stopped || this.channels.size === 0) return;
    this.pumping ??= this.removeLeftovers()
      .then(() => this.pump())
      .catch((err: unknown) => this.deps.log.error({ err }, 'the notification outbox could not be read; trying again later'))
      .finally(() => {
        this.pumping = undefined;
        this.scheduleNext();
      });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelWake?.();
    await this.pumping;
  }

  private async pump(): Promise<void> {
    // Each row once per pump, and a channel that failed once is left alone until the next pump: a channel that
    // hangs or refuses must not hold up the others row by row.
    const tried = new Set<number>();
    const digests = new Set<string>();
    this.failedChannels.clear();
    // Rows passed over (a failed channel's, held ones) stay due in the table: the pump pages past them, so they can
    // never fill the batch and hide the other channels' rows behind them.
    let skipped = 0;
    for (;;) {
      if (this.stopped) return;
      const now = this.deps.clock.now();
      const batch = this.table.due(now, BATCH, skipped);
      if (batch.length === 0) return;
      const due = batch.filter((row) => this.mayTry(row, now) && !tried.has(row.seq) && !this.failedChannels.has(row.channel) && !(row.kind === 'digest' && digests.has(row.channel)));
      if (due.length === 0) {
        skipped += batch.length;
        continue;
      }
      for (const row of due) {
        if (this.stopped) return;
        tried.add(row.seq);
        if (this.failedChannels.has(row.channel)) continue;
        if (row.kind !== 'digest') await this.sendOne(row);
        else if (!digests.has(row.channel)) {
          digests.add(row.channel);
          await this.sendDigest(row.channel);
        }
      }
    }
  }

  /**
   * Whether a due row may be tried now. A row whose retry or removal the store refused (a full disk) is held in
   * memory instead: a sent one is never sent again by this process, a failed one waits out its backoff.
   */
  private mayTry(row: OutboxRow, now: number): boolean {
    if (this.sentNotRemoved.has(row.seq)) return false;
    const held = this.heldUntil.get(row.seq);
    return held === undefined || held <= now;
  }

  private async sendOne(row: OutboxRow): Promise<void> {
    const channel = this.channels.get(row.channel);
    if (!channel) return this.drop([row], 'its channel is no longer configured');
    if (row.kind === 'event' && row.recipient !== undefined) {
      const news = requestNewsOf({ type: row.event, data: row.data }, true);
      if (!news) return this.drop([row]);
      return this.send(channel, [row], requestNotification(messageId(row), row.event, news, row.data, row.recipient, this.requestsUrl()));
    }
    if (row.kind === 'event') return this.send(channel, [row], eventNotification(messageId(row), row.event, row.data, this.openUrl()));
    const item = row.data.id === undefined ? undefined : this.deps.queue.find(row.data.id);
    if (item?.status !== 'pending') return this.drop([row]); // decided (or gone) before anyone was told: nothing to ask
    const link = this.deps.links.issuer?.issue(item.id, `notify:${channel.entry.name}`);
    try {
      await link?.saved;
    } catch (err: unknown) {
      return this.retry([row], err, channel);
    }
    return this.send(channel, [row], itemNotification(messageId(row), item, link, this.openUrl()));
  }

  private async sendDigest(channelName: string): Promise<void> {
    const now = this.deps.clock.now();
    const rows = this.table.digestOf(channelName, now).filter((row) => this.mayTry(row, now));
    const channel = this.channels.get(channelName);
    if (!channel) return this.drop(rows, 'its channel is no longer configured');
    const items = rows.flatMap((row): QueueItem[] => {
      const item = row.data.id === undefined ? undefined : this.deps.queue.find(row.data.id);
      return item?.status === 'pending' ? [item] : [];
    });
    if (items.length === 0) return this.drop(rows);
    const first = rows[0];
    if (!first) return;
    return this.send(channel, rows, digestNotification(messageId(first), items, this.openUrl()));
  }

  private async send(channel: NotificationChannel, rows: readonly OutboxRow[], notification: Notification): Promise<void> {
    const { notifier } = channel;
    try {
      await guardPluginCall(notifier.name, 'send', this.deps.sendTimeoutMs, () => notifier.instance.send(notification));
    } catch (err: unknown) {
      this.deps.plugins.noteFailure(notifier, err, new Date(this.deps.clock.now()));
      return this.retry(rows, err, channel);
    }
    this.deps.plugins.noteSuccess(notifier, new Date(this.deps.clock.now()));
    await this.drop(rows);
  }

  private async retry(rows: readonly OutboxRow[], err: unknown, channel: NotificationChannel): Promise<void> {
    this.failedChannels.add(channel.entry.name);
    const attempts = Math.max(...rows.map((row) => row.attempts)) + 1;
    if (attempts >= MAX_ATTEMPTS) {
      this.deps.log.error({ err, channel: channel.entry.name, attempts }, 'notification dropped after repeated failures');
      return this.drop(rows);
    }
    const backoff = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (attempts - 1));
    // The guard, not instanceof: a third-party notifier throws the RetryLaterError of its own copy of the sdk; and
    // the plugin call's guard wraps what the notifier threw (PluginError), so the cause is looked at too.
    const thrown = err instanceof Error && isRetryLaterError(err.cause) ? err.cause : err;
    const asked = isRetryLaterError(thrown) && thrown.retryAfterMs !== undefined ? Math.min(MAX_RETRY_MS, thrown.retryAfterMs) : 0;
    const wait = Math.max(backoff, asked);
    this.deps.log.warn({ err, channel: channel.entry.name, attempts, retry_in_ms: wait }, 'notification not sent; it is retried');
    const at = this.deps.clock.now() + wait;
    const seqs = rows.map((row) => row.seq);
    await this.deps.store.change(() => this.table.retryAt(seqs, at)).then(
      () => seqs.forEach((seq) => this.heldUntil.delete(seq)),
      (failure: unknown) => {
        this.deps.log.error({ err: failure }, 'could not store the notification retry; it is held in memory until then');
        for (const seq of seqs) this.heldUntil.set(seq, at);
      },
    );
  }

  private async drop(rows: readonly OutboxRow[], why?: string): Promise<void> {
    if (why) this.deps.log.warn({ channel: rows[0]?.channel, messages: rows.length }, `notification dropped: ${why}`);
    const seqs = rows.map((row) => row.seq);
    await this.deps.store.change(() => this.table.remove(seqs)).then(
      () => seqs.forEach((seq) => this.forget(seq)),
      (err: unknown) => {
        // Kept from being sent again by this process; after a restart it may be (at least once).
        this.deps.log.error({ err }, 'could not remove a sent notification from the outbox');
        for (const seq of seqs) this.sentNotRemoved.add(seq);
      },
    );
  }

  private forget(seq: number): void {
    this.sentNotRemoved.delete(seq);
    this.heldUntil.delete(seq);
  }

  /** Removals the store refused before: tried again at the start of each pump. */
  private async removeLeftovers(): Promise<void> {
    if (this.sentNotRemoved.size === 0) return;
    const seqs = [...this.sentNotRemoved];
    await this.deps.store.change(() => this.table.remove(seqs)).then(
      () => seqs.forEach((seq) => this.forget(seq)),
      () => undefined, // still refused: held as before
    );
  }

  private scheduleNext(): void {
    this.cancelWake?.();
    this.cancelWake = undefined;
    if (this.stopped) return;
    const next = this.table.nextDue();
    if (next === undefined) return;
    // Due already means a row this pump left (a failed channel, a held row): look again after the shortest backoff.
    const wait = next - this.deps.clock.now();
    this.cancelWake = this.deps.clock.schedule(wait > 0 ? wait : FIRST_RETRY_MS, () => this.wake());
  }

  private openUrl(): string | undefined {
    return this.deps.publicUrl === undefined ? undefined : `${this.deps.publicUrl}/queue`;
  }

  private requestsUrl(): string | undefined {
    return this.deps.publicUrl === undefined ? undefined : `${this.deps.publicUrl}/my-requests`;
  }
}

/** A message's id for the notifier: the same on every attempt (its first outbox row's sequence number). */
function messageId(row: OutboxRow): string {
  return `n${row.seq}`;
}
