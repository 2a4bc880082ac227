/**
 * Decision links (core/approvals): each approves or rejects one queue item once. Only a SHA-256 of the token is
 * kept, so a copy of the database decides nothing. `channel` says where the link was sent (a webhook, a notifier)
 * and becomes the decision's `decided_via`. A link's row outlives its use and its expiry for a while, so that a
 * late click is told what happened instead of "unknown link" (decision-links.ts prunes old rows).
 *
 * The notification outbox (core/notifications): what each channel is still to be told, written in the transaction
 * of the change it reports, so an acknowledged change is notified even across kill -9. `due_at` is when to send
 * (the end of the channel's digest window, or the next attempt after a failure).
 *
 * `core_state`: small values the core keeps between starts (the salted fingerprint of the credentials, so that a
 * start with changed credentials revokes the decision links issued before).
 */
export const SCHEMA_3 = `
CREATE TABLE decision_links (
  token_hash TEXT PRIMARY KEY,
  queue_id TEXT NOT NULL,
  channel TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER,
  used_action TEXT CHECK (used_action IN ('approved', 'rejected')),
  revoked_at INTEGER
) WITHOUT ROWID;
CREATE INDEX decision_links_by_expiry ON decision_links (expires_at);
CREATE TABLE notification_outbox (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  channel TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('item', 'digest', 'event')),
  event TEXT NOT NULL,
  data TEXT NOT NULL,
  due_at INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX notification_outbox_due ON notification_outbox (due_at);
CREATE INDEX notification_outbox_digest ON notification_outbox (channel, due_at) WHERE kind = 'digest';
CREATE TABLE core_state (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
`;
