/**
 * Decision links (core/approvals): each approves or rejects one queue item once. Only a SHA-256 of the token is
 * kept, so a copy of the database decides nothing. `channel` says where the link was sent (a webhook, a notifier)
 * and becomes the decision's `decided_via`. A link's row outlives its use and its expiry for a while, so that a
 * late click is told what happened instead of "unknown link" (decision-links.ts prunes old rows).
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
`;
