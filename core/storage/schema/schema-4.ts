/**
 * The household (issue #31).
 *
 * `users`: the accounts an admin manages (local ones with a password, and profiles of forward-auth users that set a
 * role or overrides), one JSON record each. Few rows, all read at start: the directory keeps them in memory.
 *
 * `api_keys`: keys created through the API. Only a SHA-256 of each key is kept (a key is 256 random bits, so a
 * digest is as strong as a slow hash), so a copy of the database calls nothing.
 *
 * Queue items gain who requested them (`requested_by`) and when a request was approved by the auto-approve rule
 * (`auto_approved_at`, ms): a requester's quota is a count on that index, inside the request's transaction.
 *
 * A notification may be for one person (`recipient`: their ntfy topic or Telegram chat, on the row's channel).
 */
export const SCHEMA_4 = `
CREATE TABLE users (
  name TEXT PRIMARY KEY,
  record TEXT NOT NULL
) STRICT, WITHOUT ROWID;
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  digest TEXT NOT NULL UNIQUE,
  owner TEXT NOT NULL,
  record TEXT NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX api_keys_by_owner ON api_keys (owner);
ALTER TABLE queue_items ADD COLUMN requested_by TEXT;
ALTER TABLE queue_items ADD COLUMN auto_approved_at INTEGER;
CREATE INDEX queue_requests ON queue_items (seq) WHERE requested_by IS NOT NULL;
CREATE INDEX queue_requests_by_user ON queue_items (requested_by, seq) WHERE requested_by IS NOT NULL;
ALTER TABLE notification_outbox ADD COLUMN recipient TEXT;
CREATE INDEX queue_auto_approved ON queue_items (requested_by, auto_approved_at) WHERE auto_approved_at IS NOT NULL;
`;
