/**
 * A link that approves or rejects one pending queue item, for a person who is not in the web UI: a button in a
 * phone notification, a chat message. The server issues and checks it: it decides once, expires
 * (`approvals.link_ttl`), is stored only as a hash, and `POST /api/v1/approvals/revoke` ends every live one.
 * Opening it (GET) shows the album and two buttons and decides nothing, so chat unfurlers and link previewers are
 * harmless; `POST` with `action=approve|reject` (a form, or JSON `{"action": …}`) decides.
 */
export interface IssuedDecisionLink {
  /** `{server.public_url}/decide/{token}`. */
  url: string;
  /** When it stops working (ISO 8601 UTC). */
  expiresAt: string;
  /**
   * Settles once the link is stored durably. Called inside a change (an event sink's `record`), the link is
   * stored with that change; called elsewhere, wait for this before sending the URL anywhere.
   */
  saved: Promise<void>;
}

/**
 * What became of a decision made with a link: decided now, or why not (the link was used, expired or revoked, the
 * item was decided another way or is gone, or the link is unknown), with the item's state when known.
 */
export type DecisionOutcome =
  | { ok: true; status: 'approved' | 'rejected'; decided_by: string }
  | { ok: false; reason: 'used' | 'expired' | 'revoked' | 'decided' | 'gone' | 'unknown'; status?: 'pending' | 'approved' | 'rejected'; decided_by?: string };

/**
 * Issues decision links (sdk 1.5). On the context only when the server has `server.public_url`: feature-detect.
 *
 * @example
 * const link = ctx.decisionLinks?.issue(event.data.id, 'ntfy:phone');
 * if (link) { await link.saved; actions.push({ action: 'http', label: 'Approve', url: link.url, body: 'action=approve' }); }
 */
export interface DecisionLinks {
  /**
   * A new link for queue item `queueId`. `channel` names where it is sent (letters, digits, `.:_-`, at most 64):
   * a decision made with it records `decided_by: "link"` and `decided_via: channel`.
   */
  issue(queueId: string, channel: string): IssuedDecisionLink;
  /**
   * Decides with a link the server issued (its `url`, or the token that ends it: a chat button's data has room for
   * the 43-character token, not the URL), for a channel that takes the decision itself rather than
   * sending the person to the link: a chat button pressed. `decidedBy` names who pressed it (`telegram:alice`) and is
   * recorded as the decision's `decided_by`; check first that this person may decide. Never throws for a dead or
   * unknown link: the outcome says what happened.
   */
  decide(link: string, action: 'approve' | 'reject', decidedBy: string): Promise<DecisionOutcome>;
}
