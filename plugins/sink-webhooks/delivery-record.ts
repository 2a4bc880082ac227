import type { EventType, WebhookDelivery, WebhookDeliveryStatus } from '@crateflow/sdk';

/**
 * One attempt as stored. Plain JSON (null rather than absent), so a record is a JsonValue for plugin storage.
 */
export type StoredAttempt = {
  at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  next_retry_at: string | null;
};

/**
 * A delivery in the outbox: written before its first attempt and updated after each one. The exact bytes live
 * beside it, once per event (see DeliveryStore.body), so retries and redeliveries resend what was first built.
 */
export type StoredDelivery = {
  id: string;
  webhook: string;
  event: EventType;
  event_id: string;
  status: WebhookDeliveryStatus;
  created_at: string;
  updated_at: string;
  /** When the next attempt is due (epoch ms); null once the delivery is final. */
  next_attempt_at: number | null;
  /** Attempts since the delivery was (re)queued; the retry budget counts these. */
  round_attempts: number;
  attempts: StoredAttempt[];
};

/** How many attempts one record keeps (a redelivered delivery could otherwise grow without end). */
export const MAX_ATTEMPTS_KEPT = 20;

/** The record with one more attempt logged, keeping only the newest `MAX_ATTEMPTS_KEPT`. */
export function withAttempt(record: StoredDelivery, attempt: StoredAttempt, changes: Partial<StoredDelivery>): StoredDelivery {
  const attempts = [...record.attempts, attempt].slice(-MAX_ATTEMPTS_KEPT);
  return { ...record, ...changes, attempts, updated_at: attempt.at };
}

/** The record as the API shows it (no body, times as ISO strings, no null error members). */
export function toDeliveryView(record: StoredDelivery): WebhookDelivery {
  return {
    id: record.id,
    webhook: record.webhook,
    event: record.event,
    event_id: record.event_id,
    status: record.status,
    created_at: record.created_at,
    updated_at: record.updated_at,
    next_attempt_at: record.next_attempt_at === null ? null : new Date(record.next_attempt_at).toISOString(),
    attempts: record.attempts.map((a) => ({
      at: a.at,
      status_code: a.status_code,
      ...(a.error === null ? {} : { error: a.error }),
      duration_ms: a.duration_ms,
      next_retry_at: a.next_retry_at,
    })),
  };
}
