import { createHash, randomBytes } from 'node:crypto';
import type { Clock, DecisionLinks, DecisionOutcome, IssuedDecisionLink } from '@crateflow/sdk';
import type { Store } from '../storage/store.js';
import { DecisionLinkTable, type DecisionLinkRow } from './decision-link-table.js';

/** Why a link no longer decides. `decided`: the item was decided another way (or with another of its links). */
export type DeadLinkReason = 'used' | 'revoked' | 'expired' | 'decided';

/** How long a dead link's row is kept, so a late click is told what happened rather than "unknown link". */
const KEEP_AFTER_EXPIRY_MS = 30 * 24 * 3600_000;
/** A token: 256 random bits in base64url. Anything else in the path is not a token and is refused before a lookup. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const CHANNEL = /^[A-Za-z0-9.:_-]{1,64}$/;

/**
 * Issues, reads and revokes decision links (see sdk/src/decision-links.ts). A token is 256 random bits; the database keeps
 * only its SHA-256, so reading the database (or a backup) gives nobody a working link. Checking a presented token
 * is a lookup by its hash: an attacker learns nothing from timing that a 256-bit guess would need.
 */
export class DecisionLinkService {
  readonly table: DecisionLinkTable;
  private lastPrune = Number.NEGATIVE_INFINITY;

  /** `publicUrl`: `server.public_url` without its trailing slash; without one, links are read but not issued. */
  constructor(private readonly store: Store, private readonly clock: Clock, private readonly publicUrl: string | undefined, private readonly ttlMs: number) {
    this.table = new DecisionLinkTable(store);
  }

  private decide: ((token: string, action: 'approve' | 'reject', decidedBy: string) => Promise<DecisionOutcome>) | undefined;

  /**
   * What plugins get as `ctx.decisionLinks`, when links can be issued. Plugins are created before the queue exists,
   * so deciding is attached later ({@link attachDecide}), before the service serves.
   */
  get issuer(): DecisionLinks | undefined {
    if (this.publicUrl === undefined) return undefined;
    return {
      issue: (queueId, channel) => this.issue(queueId, channel),
      decide: async (url, action, decidedBy) => {
        if (!this.decide) throw new Error('decision links cannot decide before the service has started');
        if (typeof decidedBy !== 'string' || decidedBy.length === 0 || decidedBy.length > 100) throw new Error('decidedBy must be 1-100 characters');
        return this.decide(tokenOf(url), action, decidedBy);
      },
    };
  }

  /** Lets plugins decide with links (see {@link issuer}). */
  attachDecide(decide: (token: string, action: 'approve' | 'reject', decidedBy: string) => Promise<DecisionOutcome>): void {
    this.decide = decide;
  }

  issue(queueId: string, channel: string): IssuedDecisionLink {
    if (this.publicUrl === undefined) throw new Error('decision links need server.public_url');
    if (!CHANNEL.test(channel)) throw new Error(`decision link channel ${JSON.stringify(channel)} must be 1-64 letters, digits or .:_-`);
    const token = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    const expiresAt = now + this.ttlMs;
    // Inside a running change (an event sink recording queue_added) this joins it, so the link exists exactly when
    // the item does; elsewhere it commits with the next group commit.
    const saved = this.store.change(() => {
      this.table.insert({ token_hash: hashOf(token), queue_id: queueId, channel, created_at: now, expires_at: expiresAt });
      this.pruneNowAndThen(now);
    });
    saved.catch(() => undefined); // the caller may not wait; a failed write only means the link does not work
    return { url: `${this.publicUrl}/decide/${token}`, expiresAt: new Date(expiresAt).toISOString(), saved };
  }

  /** The stored link a presented token names, or undefined (not a token, unknown, or pruned). */
  find(token: string): DecisionLinkRow | undefined {
    return TOKEN.test(token) ? this.table.get(hashOf(token)) : undefined;
  }

  /** Why `link` can no longer decide at `now`, looking at the link alone; undefined while it is live. */
  deadReason(link: DecisionLinkRow, now: number): Exclude<DeadLinkReason, 'decided'> | undefined {
    if (link.used_at !== null) return 'used';
    if (link.revoked_at !== null) return 'revoked';
    if (now >= link.expires_at) return 'expired';
    return undefined;
  }

  /**
   * Ends every live link (POST /api/v1/approvals/revoke), or those issued before `issuedBefore`; resolves with how
   * many once that is on disk.
   */
  revokeAll(issuedBefore?: number): Promise<number> {
    return this.store.change(() => this.table.revokeLive(this.clock.now(), issuedBefore));
  }

  // Once an hour at most, with an issue: the table holds the links of at most a month past their expiry.
  private pruneNowAndThen(now: number): void {
    if (now - this.lastPrune < 3600_000) return;
    this.lastPrune = now;
    this.table.pruneExpiredBefore(now - KEEP_AFTER_EXPIRY_MS);
  }
}

/** The token of a link given as its URL (`…/decide/{token}`) or as the token itself; else a string no link has. */
function tokenOf(url: string): string {
  if (TOKEN.test(url)) return url;
  const path = URL.canParse(url) ? new URL(url).pathname : '';
  return /^\/decide\/([A-Za-z0-9_-]+)$/.exec(path)?.[1] ?? '';
}

function hashOf(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64url');
}

/** The token's hash, for the one caller that re-reads a link inside a change (link-decisions.ts). */
export { hashOf as tokenHashOf };
