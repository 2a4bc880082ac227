import type { Store } from '../storage/store.js';

/** One decision link as stored: never the token, only its hash. Times are milliseconds since the epoch. */
export interface DecisionLinkRow {
  token_hash: string;
  queue_id: string;
  channel: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  used_action: 'approved' | 'rejected' | null;
  revoked_at: number | null;
}

/** `decision_links`: the one module that reads and writes its rows. Writes run inside a change of the store. */
export class DecisionLinkTable {
  private readonly statements;

  constructor(store: Store) {
    const db = store.db;
    this.statements = {
      insert: db.prepare<[string, string, string, number, number]>('INSERT INTO decision_links (token_hash, queue_id, channel, created_at, expires_at) VALUES (?, ?, ?, ?, ?)'),
      get: db.prepare<[string], DecisionLinkRow>('SELECT * FROM decision_links WHERE token_hash = ?'),
      markUsed: db.prepare<[number, string, string]>('UPDATE decision_links SET used_at = ?, used_action = ? WHERE token_hash = ? AND used_at IS NULL AND revoked_at IS NULL'),
      revokeLive: db.prepare<[number, number, number]>('UPDATE decision_links SET revoked_at = ? WHERE used_at IS NULL AND revoked_at IS NULL AND expires_at > ? AND created_at < ?'),
      pruneExpiredBefore: db.prepare<[number]>('DELETE FROM decision_links WHERE expires_at < ?'),
    };
  }

  insert(row: Pick<DecisionLinkRow, 'token_hash' | 'queue_id' | 'channel' | 'created_at' | 'expires_at'>): void {
    this.statements.insert.run(row.token_hash, row.queue_id, row.channel, row.created_at, row.expires_at);
  }

  get(tokenHash: string): DecisionLinkRow | undefined {
    return this.statements.get.get(tokenHash);
  }

  /** Marks a live link used; false when it was used or revoked meanwhile. */
  markUsed(tokenHash: string, at: number, action: 'approved' | 'rejected'): boolean {
    return this.statements.markUsed.run(at, action, tokenHash).changes === 1;
  }

  /** Revokes every link issued before `issuedBefore` and not yet used, revoked or expired; returns how many. */
  revokeLive(at: number, issuedBefore = Number.MAX_SAFE_INTEGER): number {
    return this.statements.revokeLive.run(at, at, issuedBefore).changes;
  }

  /** Forgets links that expired before `cutoff` (the expires_at index makes this cheap). */
  pruneExpiredBefore(cutoff: number): number {
    return this.statements.pruneExpiredBefore.run(cutoff).changes;
  }
}
