import type { Clock, DomainEvent, EventType, Logger } from '@crateflow/sdk';
import { guardPluginCall } from '../plugins/guard-plugin-call.js';
import type { LoadedPluginOf, LoadedPlugins } from '../plugins/plugin-host.js';
import type { EventLogTable } from './event-log-table.js';

type EventData = DomainEvent['data'];
type Listener = (event: DomainEvent) => void;

/**
 * Core code that keeps an outbox of its own for some events (the notification dispatcher): `record()` runs inside
 * the change that fired the event, so what it writes commits, or is undone, with that change.
 */
export interface EventRecorder {
  readonly name: string;
  accepts(type: EventType): boolean;
  /** Synchronous SQL only. A throw undoes only the recorder's own writes and is logged. */
  record(event: DomainEvent): void;
}
/** Runs `work` inside the running change, in a savepoint of its own (GroupCommit joins it). */
export type JoinChange = (work: () => void) => Promise<void>;

const MAX_IN_FLIGHT_PER_SINK = 32;
const RETRY_BASE_MS = 1000;
const RETRY_MAX_MS = 5 * 60_000;

/**
 * Carries committed domain events to every event-sink plugin and to in-process listeners (the UI's live
 * updates). Sinks run outside the request that caused the event, each with a deadline and its own retry
 * backoff, so a slow or failing sink never slows or fails a request, nor delays another sink.
 */
export class EventBus {
  private readonly listeners = new Set<Listener>();
  private readonly recorders: EventRecorder[] = [];
  private readonly inFlight = new Map<string, number>();
  private readonly backlog = new Map<string, string[]>();
  private readonly failures = new Map<string, number>();
  private readonly retryTimers = new Map<string, () => void>();
  private stopped = false;

  constructor(
    private readonly table: EventLogTable,
    private readonly plugins: LoadedPlugins,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly newId: () => string,
    private readonly sinkTimeoutMs: number,
  ) {}

  /**
   * Adds an event to the outbox, for the sinks that take its type. Call inside a change (see UnitOfWork), with
   * `joinChange` running work inside it: a sink with `record()` writes its own outbox there, in the same
   * transaction, and is not handed the event again.
   */
  record(type: EventType, data: EventData, joinChange: JoinChange): DomainEvent {
    const event: DomainEvent = { id: this.newId(), type, timestamp: new Date(this.clock.now()).toISOString(), data: withoutUndefined(data) };
    const sinks = this.plugins.sinks.filter((sink) => this.wants(sink, type) && !this.recordedBy(sink, event, joinChange)).map((sink) => sink.name);
    this.table.record(event, sinks);
    for (const recorder of this.recorders) {
      if (!recorder.accepts(type)) continue;
      joinChange(() => recorder.record(event)).catch((err: unknown) => this.log.error({ err, recorder: recorder.name, event: event.type }, 'could not record the event for its outbox'));
    }
    return event;
  }

  /** Adds a recorder (see EventRecorder); call before the first change. */
  addRecorder(recorder: EventRecorder): void {
    this.recorders.push(recorder);
  }

  /** Whether `sink` took `event` into its own outbox, in the running change (see EventSink.record). */
  private recordedBy(sink: LoadedPluginOf<'event-sink'>, event: DomainEvent, joinChange: JoinChange): boolean {
    const record = sink.instance.record?.bind(sink.instance);
    if (!record) return false;
    let recorded = false;
    // In a savepoint of its own: if it throws, its writes are undone and the event goes through deliver().
    joinChange(() => {
      const answer: unknown = record(event);
      if (answer instanceof Promise) throw new Error('record() returned a promise; it must be synchronous');
      recorded = true;
    }).catch((err: unknown) => {
      if (!recorded) this.log.warn({ err, plugin: sink.name, event: event.type }, 'event sink record() failed; the event is delivered through deliver()');
    });
    return recorded;
  }

  /** Whether `sink` takes events of `type`; a sink whose `accepts()` throws is given everything (nothing is lost). */
  private wants(sink: LoadedPluginOf<'event-sink'>, type: EventType): boolean {
    try {
      return sink.instance.accepts?.(type) ?? true;
    } catch (err: unknown) {
      this.log.warn({ err, plugin: sink.name }, 'event sink accepts() failed; it is given the event');
      return true;
    }
  }

  /** Hands committed events to listeners and sinks. Never throws and never waits for a sink. */
  publish(events: readonly DomainEvent[]): void {
    for (const event of events) {
      for (const listener of this.listeners) {
        try {
          listener(event);
        } catch (err: unknown) {
          this.log.error({ err, event: event.type }, 'event listener failed; other listeners still run');
        }
      }
      for (const sink of this.plugins.sinks) if (this.table.isPendingFor(sink.name, event.id)) this.enqueue(sink.name, event.id);
    }
    this.pump();
  }

  /** Re-sends everything left in the journal (after a restart). */
  resume(): void {
    const entries = this.table.undelivered();
    for (const { sink, event } of entries) this.enqueue(sink, event.id);
    if (entries.length > 0) this.log.info({ deliveries: entries.length }, 'resuming undelivered events');
    this.pump();
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  stop(): void {
    this.stopped = true;
    for (const cancel of this.retryTimers.values()) cancel();
    this.retryTimers.clear();
  }

  /** Events not yet taken by every sink. */
  get pendingCount(): number {
    return this.table.undeliveredCount();
  }

  private enqueue(sink: string, eventId: string): void {
    const queue = this.backlog.get(sink) ?? [];
    queue.push(eventId);
    this.backlog.set(sink, queue);
  }

  private pump(): void {
    if (this.stopped) return;
    for (const sink of this.plugins.sinks) {
      if (this.retryTimers.has(sink.name)) continue; // backing off after a failure
      const queue = this.backlog.get(sink.name);
      while (queue && queue.length > 0 && (this.inFlight.get(sink.name) ?? 0) < MAX_IN_FLIGHT_PER_SINK) {
        const eventId = queue.shift();
        if (eventId !== undefined) this.deliver(sink, eventId);
      }
    }
  }

  private deliver(sink: LoadedPluginOf<'event-sink'>, eventId: string): void {
    const event = this.table.isPendingFor(sink.name, eventId) ? this.table.get(eventId) : undefined;
    if (!event) return;
    this.inFlight.set(sink.name, (this.inFlight.get(sink.name) ?? 0) + 1);
    guardPluginCall(sink.name, 'deliver', this.sinkTimeoutMs, () => sink.instance.deliver(event))
      .then(() => {
        this.failures.delete(sink.name);
        this.plugins.noteSuccess(sink, new Date(this.clock.now()));
        this.acknowledge(sink.name, eventId);
      })
      .catch((err: unknown) => {
        this.plugins.noteFailure(sink, err, new Date(this.clock.now()));
        this.backOff(sink.name, eventId, err);
      })
      .finally(() => {
        this.inFlight.set(sink.name, (this.inFlight.get(sink.name) ?? 1) - 1);
        this.pump();
      });
  }

  private acknowledge(sink: string, eventId: string): void {
    // Losing this write only means the sink sees the event again after a crash, which sinks tolerate.
    this.table.acknowledge(sink, eventId).catch((err: unknown) => this.log.warn({ err }, 'could not record an event as delivered; it may be sent again after a restart'));
  }

  private backOff(sink: string, eventId: string, err: unknown): void {
    const failures = (this.failures.get(sink) ?? 0) + 1;
    this.failures.set(sink, failures);
    const delay = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** (failures - 1));
    this.log.warn({ err, sink, event_id: eventId, retry_in_ms: delay }, 'event sink failed; retrying later');
    this.backlog.get(sink)?.unshift(eventId) ?? this.backlog.set(sink, [eventId]);
    if (this.retryTimers.has(sink) || this.stopped) return;
    const cancel = this.clock.schedule(delay, () => {
      this.retryTimers.delete(sink);
      this.pump();
    });
    this.retryTimers.set(sink, cancel);
  }
}

function withoutUndefined(data: EventData): EventData {
  const clean: EventData = { artist: data.artist };
  if (data.album !== undefined) clean.album = data.album;
  if (data.mbid !== undefined) clean.mbid = data.mbid;
  if (data.download_path !== undefined) clean.download_path = data.download_path;
  if (data.id !== undefined) clean.id = data.id;
  if (data.title !== undefined) clean.title = data.title;
  if (data.type !== undefined) clean.type = data.type;
  if (data.in_library !== undefined) clean.in_library = data.in_library;
  if (data.decided_by !== undefined) clean.decided_by = data.decided_by;
  if (data.decided_via !== undefined) clean.decided_via = data.decided_via;
  if (data.requested_by !== undefined) clean.requested_by = data.requested_by;
  if (data.decline_reason !== undefined) clean.decline_reason = data.decline_reason;
  return clean;
}
