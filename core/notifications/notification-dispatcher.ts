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
    },
    channels: readonly NotificationChannel[],
  ) {
    this.table = new NotificationOutboxTable(deps.store);
    for (const channel of channels) if (channel.entry.enabled) this.channels.set(channel.entry.name, channel);
    this.eachSources = new Set(deps.eachSources);
  }

  accepts(type: EventType): boolean {
    return [...this.channels.values()].some((channel) => channel.entry.events.some((wanted) => wanted === type));
  }

  /** Inside the change that fired `event`: one outbox row per channel that takes it. */
  record(event: DomainEvent): void {
    const now = this.deps.clock.now();
    for (const { entry } of this.channels.values()) {
      if (!entry.events.some((wanted) => wanted === event.type)) continue;
      if (event.type !== 'queue_added') {
        this.table.insert({ channel: entry.name, kind: 'event', event: event.type, data: event.data, due_at: now });
        continue;
      }
      const item = event.data.id === undefined ? undefined : this.deps.queue.find(event.data.id);
      if (!item) continue;
      // A person who added an album by hand, or a source asked to, hears of each candidate with its buttons.
      const each = entry.digest === 'off' || item.source === 'api' || this.eachSources.has(item.source);
      const due = each ? now : (this.table.openDigestDue(entry.name) ?? now + parseDuration(entry.digest));
      this.table.insert({ channel: entry.name, kind: each ? 'item' : 'digest', event: event.type, data: event.data, due_at: due });
    }
  }

  /** Sends what is due, and from then on whatever becomes due (call once the app serves). */
  start(): void {
    this.stopped = false;
    this.wake();
  }

  /** Called after each commit (the event bus's listeners run then): sends what it made due. */
  wake(): void {
    if (this.stopped || this.channels.size === 0) return;
    this.pumping ??= this.pump().finally(() => {
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
    // Each row once per pump: one whose retry could not be written stays due, and must not spin this loop.
    const tried = new Set<number>();
    const digests = new Set<string>();
    for (;;) {
      if (this.stopped) return;
      const due = this.table.due(this.deps.clock.now(), BATCH).filter((row) => !tried.has(row.seq) && !(row.kind === 'digest' && digests.has(row.channel)));
      if (due.length === 0) return;
      for (const row of due) {
        if (this.stopped) return;
        tried.add(row.seq);
        if (row.kind !== 'digest') await this.sendOne(row);
        else if (!digests.has(row.channel)) {
          digests.add(row.channel);
          await this.sendDigest(row.channel);
        }
      }
    }
  }

  private async sendOne(row: OutboxRow): Promise<void> {
    const channel = this.channels.get(row.channel);
    if (!channel) return this.drop([row], 'its channel is no longer configured');
    if (row.kind === 'event') return this.send(channel, [row], eventNotification(row.event, row.data, this.openUrl()));
    const item = row.data.id === undefined ? undefined : this.deps.queue.find(row.data.id);
    if (item?.status !== 'pending') return this.drop([row]); // decided (or gone) before anyone was told: nothing to ask
    const link = this.deps.links.issuer?.issue(item.id, `notify:${channel.entry.name}`);
    try {
      await link?.saved;
    } catch (err: unknown) {
      return this.retry([row], err, channel);
    }
    return this.send(channel, [row], itemNotification(item, link, this.openUrl()));
  }

  private async sendDigest(channelName: string): Promise<void> {
    const rows = this.table.digestOf(channelName, this.deps.clock.now());
    const channel = this.channels.get(channelName);
    if (!channel) return this.drop(rows, 'its channel is no longer configured');
    const items = rows.flatMap((row): QueueItem[] => {
      const item = row.data.id === undefined ? undefined : this.deps.queue.find(row.data.id);
      return item?.status === 'pending' ? [item] : [];
    });
    if (items.length === 0) return this.drop(rows);
    return this.send(channel, rows, digestNotification(items, this.openUrl()));
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
    const attempts = Math.max(...rows.map((row) => row.attempts)) + 1;
    if (attempts >= MAX_ATTEMPTS) {
      this.deps.log.error({ err, channel: channel.entry.name, attempts }, 'notification dropped after repeated failures');
      return this.drop(rows);
    }
    const backoff = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (attempts - 1));
    // The guard, not instanceof: a third-party notifier throws the RetryLaterError of its own copy of the sdk.
    const asked = isRetryLaterError(err) && err.retryAfterMs !== undefined ? Math.min(MAX_RETRY_MS, err.retryAfterMs) : 0;
    const wait = Math.max(backoff, asked);
    this.deps.log.warn({ err, channel: channel.entry.name, attempts, retry_in_ms: wait }, 'notification not sent; it is retried');
    const at = this.deps.clock.now() + wait;
    await this.deps.store.change(() => this.table.retryAt(rows.map((row) => row.seq), at)).catch((failure: unknown) => this.deps.log.error({ err: failure }, 'could not schedule the notification retry'));
  }

  private async drop(rows: readonly OutboxRow[], why?: string): Promise<void> {
    if (why) this.deps.log.warn({ channel: rows[0]?.channel, messages: rows.length }, `notification dropped: ${why}`);
    await this.deps.store.change(() => this.table.remove(rows.map((row) => row.seq))).catch((err: unknown) => this.deps.log.error({ err }, 'could not remove a sent notification from the outbox; it may be sent again'));
  }

  private scheduleNext(): void {
    this.cancelWake?.();
    this.cancelWake = undefined;
    if (this.stopped) return;
    const next = this.table.nextDue();
    if (next === undefined) return;
    // Due already means a row this pump could not settle (its retry was not written): look again in a second.
    const wait = next - this.deps.clock.now();
    this.cancelWake = this.deps.clock.schedule(wait > 0 ? wait : 1000, () => this.wake());
  }

  private openUrl(): string | undefined {
    return this.deps.publicUrl === undefined ? undefined : `${this.deps.publicUrl}/queue`;
  }
}
