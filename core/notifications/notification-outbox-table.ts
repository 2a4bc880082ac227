import type { DomainEvent } from '@crateflow/sdk';
import type { Store } from '../storage/store.js';

/** One message still to send, or one candidate waiting in a channel's digest. */
export interface OutboxRow {
  seq: number;
  channel: string;
  kind: 'item' | 'digest' | 'event';
  event: DomainEvent['type'];
  /** The event's data. */
  data: DomainEvent['data'];
  due_at: number;
  attempts: number;
  /** A message for one person: where on the channel (absent: the channel's own audience). */
  recipient?: string;
}

interface StoredRow extends Omit<OutboxRow, 'data' | 'recipient'> {
  data: string;
  recipient: string | null;
}

/** `notification_outbox`: the one module that reads and writes its rows. Writes run inside a change of the store. */
export class NotificationOutboxTable {
  private readonly statements;

  private readonly db;

  constructor(store: Store) {
    const db = store.db;
    this.db = db;
    this.statements = {
      insert: db.prepare<[string, string, string, string, number, string | null]>('INSERT INTO notification_outbox (channel, kind, event, data, due_at, recipient) VALUES (?, ?, ?, ?, ?, ?)'),
      openDigest: db.prepare<[string, number], number>("SELECT due_at FROM notification_outbox INDEXED BY notification_outbox_digest WHERE kind = 'digest' AND channel = ? AND due_at > ? AND attempts = 0 ORDER BY due_at DESC LIMIT 1").pluck(),
      due: db.prepare<[number, number, number], StoredRow>('SELECT * FROM notification_outbox INDEXED BY notification_outbox_due WHERE due_at <= ? ORDER BY due_at, seq LIMIT ? OFFSET ?'),
      digestOf: db.prepare<[string, number], StoredRow>("SELECT * FROM notification_outbox INDEXED BY notification_outbox_digest WHERE kind = 'digest' AND channel = ? AND due_at <= ? ORDER BY seq"),
      nextDue: db.prepare<[], number>('SELECT min(due_at) FROM notification_outbox').pluck(),
      remove: db.prepare<[number]>('DELETE FROM notification_outbox WHERE seq = ?'),
      retry: db.prepare<[number, number]>('UPDATE notification_outbox SET attempts = attempts + 1, due_at = ? WHERE seq = ?'),
    };
  }

  insert(row: Pick<OutboxRow, 'channel' | 'kind' | 'event' | 'data' | 'due_at' | 'recipient'>): void {
    this.statements.insert.run(row.channel, row.kind, row.event, JSON.stringify(row.data), row.due_at, row.recipient ?? null);
  }

  /**
   * When the channel's open digest is sent, or undefined when it has none open at `now`: a window that is due is
   * being sent, and a candidate arriving meanwhile starts the next one rather than trail it a moment later; a window
   * that failed and waits for its retry is closed too (its message, and its id, are the ones already tried).
   */
  openDigestDue(channel: string, now: number): number | undefined {
    return this.statements.openDigest.get(channel, now) ?? undefined;
  }

  /** Rows due at `now`, oldest first, at most `limit`, after the first `offset` of them. */
  due(now: number, limit: number, offset = 0): OutboxRow[] {
    return this.statements.due.all(now, limit, offset).map(parsed);
  }

  /** Every candidate of the channel's digest that is due at `now`. */
  digestOf(channel: string, now: number): OutboxRow[] {
    return this.statements.digestOf.all(channel, now).map(parsed);
  }

  /** When the next row is due, or undefined when there is none. */
  nextDue(): number | undefined {
    return this.statements.nextDue.get() ?? undefined;
  }

  /** Forgets what is still to be sent to channels no longer configured (or disabled); returns how many rows. */
  removeChannelsOtherThan(channels: readonly string[]): number {
    const placeholders = channels.map(() => '?').join(', ');
    const sql = channels.length === 0 ? 'DELETE FROM notification_outbox' : `DELETE FROM notification_outbox WHERE channel NOT IN (${placeholders})`;
    return this.db.prepare(sql).run(...channels).changes;
  }

  remove(seqs: readonly number[]): void {
    for (const seq of seqs) this.statements.remove.run(seq);
  }

  retryAt(seqs: readonly number[], dueAt: number): void {
    for (const seq of seqs) this.statements.retry.run(dueAt, seq);
  }
}

function parsed(row: StoredRow): OutboxRow {
  // Written by this table only, from an event's data.
  const { recipient, ...rest } = row;
  return { ...rest, data: JSON.parse(row.data) as DomainEvent['data'], ...(recipient === null ? {} : { recipient }) };
}
