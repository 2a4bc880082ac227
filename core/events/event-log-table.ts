import type { DomainEvent } from '@crateflow/sdk';
import type { Store } from '../storage/store.js';

/** Events the dashboard lists; older ones are kept only while a sink has not taken them. */
export const RECENT_EVENTS = 50;
/** How long a sink's acknowledgement may wait for a commit to ride on: a lost one only means a repeat. */
const ACKNOWLEDGE_WITHIN_MS = 1000;

/**
 * The events in the database: the transactional outbox (`event_deliveries`, a row per event and sink that has not
 * taken it yet, written in the transaction of the change that fired the event) and the latest events for the
 * dashboard. An event row goes once it is both delivered everywhere and older than the latest RECENT_EVENTS.
 */
export class EventLogTable {
  private readonly statements;

  constructor(private readonly store: Store) {
    const db = store.db;
    this.statements = {
      insert: db.prepare('INSERT INTO events (id, type, record) VALUES (?, ?, ?)'),
      deliverTo: db.prepare('INSERT INTO event_deliveries (sink, event_seq) VALUES (?, ?)'),
      forgetOld: db.prepare('DELETE FROM events WHERE seq = ? AND NOT EXISTS (SELECT 1 FROM event_deliveries WHERE event_seq = ?)'),
      delivered: db.prepare('DELETE FROM event_deliveries WHERE sink = ? AND event_seq = (SELECT seq FROM events WHERE id = ?) RETURNING event_seq').pluck(),
      latestSeq: db.prepare('SELECT coalesce(max(seq), 0) FROM events').pluck(),
      recent: db.prepare('SELECT record FROM events ORDER BY seq DESC LIMIT ?').pluck(),
      get: db.prepare('SELECT record FROM events WHERE id = ?').pluck(),
      undelivered: db.prepare('SELECT d.sink AS sink, e.record AS record FROM event_deliveries d JOIN events e ON e.seq = d.event_seq ORDER BY d.event_seq'),
      undeliveredCount: db.prepare('SELECT count(DISTINCT event_seq) FROM event_deliveries').pluck(),
      pendingFor: db.prepare('SELECT 1 FROM event_deliveries WHERE sink = ? AND event_seq = (SELECT seq FROM events WHERE id = ?)').pluck(),
    };
  }

  /** Records `event` for `sinks` (inside the change that fires it). */
  record(event: DomainEvent, sinks: readonly string[]): void {
    const seq = Number(this.statements.insert.run(event.id, event.type, JSON.stringify(event)).lastInsertRowid);
    for (const sink of sinks) this.statements.deliverTo.run(sink, seq);
    this.forget(seq - RECENT_EVENTS);
  }

  /** `sink` took the event: written with the next commit, within a second (see ACKNOWLEDGE_WITHIN_MS). */
  acknowledge(sink: string, eventId: string): Promise<void> {
    return this.store.changeLazily(() => {
      const seq = this.statements.delivered.get(sink, eventId) as number | undefined;
      if (seq !== undefined && seq <= Number(this.statements.latestSeq.get()) - RECENT_EVENTS) this.forget(seq);
    }, ACKNOWLEDGE_WITHIN_MS);
  }

  /** Whether `sink` has yet to take the event. */
  isPendingFor(sink: string, eventId: string): boolean {
    return this.statements.pendingFor.get(sink, eventId) !== undefined;
  }

  get(eventId: string): DomainEvent | undefined {
    const record = this.statements.get.get(eventId) as string | undefined;
    return record === undefined ? undefined : (JSON.parse(record) as DomainEvent);
  }

  /** Every event a sink has yet to take, oldest first (to resend after a restart). */
  undelivered(): { sink: string; event: DomainEvent }[] {
    return (this.statements.undelivered.all() as { sink: string; record: string }[]).map((row) => ({ sink: row.sink, event: JSON.parse(row.record) as DomainEvent }));
  }

  /** How many events some sink has yet to take. */
  undeliveredCount(): number {
    return Number(this.statements.undeliveredCount.get());
  }

  /** The latest `limit` events, newest first. */
  recent(limit: number): DomainEvent[] {
    return (this.statements.recent.all(Math.min(limit, RECENT_EVENTS)) as string[]).map((record) => JSON.parse(record) as DomainEvent);
  }

  private forget(seq: number): void {
    if (seq > 0) this.statements.forgetOld.run(seq, seq);
  }
}
