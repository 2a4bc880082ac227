import type { Clock, DecisionOutcome } from '@crateflow/sdk';
import { ConflictError } from '../errors/conflict-error.js';
import { NotFoundError } from '../errors/not-found-error.js';
import type { QueueItem } from '../queue/queue-item.schema.js';
import type { Decision, QueueService } from '../queue/queue-service.js';
import type { DecisionLinkRow } from './decision-link-table.js';
import { tokenHashOf, type DeadLinkReason, type DecisionLinkService } from './decision-links.js';

/** What a presented link is, or did. `item` is absent only when the item is gone from the queue. */
export type LinkState =
  | { kind: 'unknown' }
  | { kind: 'live'; link: DecisionLinkRow; item: QueueItem }
  | { kind: 'dead'; reason: DeadLinkReason | 'gone'; link: DecisionLinkRow; item?: QueueItem }
  | { kind: 'decided'; link: DecisionLinkRow; item: QueueItem };

/** Thrown inside the decision's transaction when the link died meanwhile (another click, a revoke). */
class LinkDiedError extends Error {
  constructor(readonly reason: DeadLinkReason) {
    super(`the decision link is ${reason}`);
  }
}

/** Reads a link for the decision page, and decides with it: once, for its one item, before it expires. */
export class LinkDecisions {
  constructor(private readonly links: DecisionLinkService, private readonly queue: QueueService, private readonly clock: Clock) {}

  /** The link behind `token` and its item, as the page shows them. Decides nothing. */
  look(token: string): LinkState {
    const link = this.links.find(token);
    if (!link) return { kind: 'unknown' };
    return this.stateOf(link);
  }

  /** Decides the link's item, or says why the link cannot. `by` is who decided (a chat user); else `link`. */
  async decide(token: string, decision: Decision, by = 'link'): Promise<LinkState> {
    const link = this.links.find(token);
    if (!link) return { kind: 'unknown' };
    const before = this.stateOf(link);
    if (before.kind !== 'live') return before;
    const hash = tokenHashOf(token);
    try {
      const item = await this.queue.decideOne(link.queue_id, decision, { by, via: link.channel }, () => {
        // Again inside the transaction: two clicks at once, or a revoke just before, must not decide twice.
        const now = this.clock.now();
        const fresh = this.links.table.get(hash);
        const dead = fresh && this.links.deadReason(fresh, now);
        if (!fresh || dead) throw new LinkDiedError(dead ?? 'revoked');
        if (!this.links.table.markUsed(hash, now, decision)) throw new LinkDiedError('used');
      });
      return { kind: 'decided', link: { ...link, used_action: decision }, item };
    } catch (err: unknown) {
      // Died meanwhile, or the item was decided another way: the page says what became of it.
      if (err instanceof LinkDiedError || err instanceof ConflictError || err instanceof NotFoundError) return this.stateOf(this.links.table.get(hash) ?? link);
      throw err;
    }
  }

  /** A decision for a plugin (a chat button): the same rules, the answer as the sdk's DecisionOutcome. */
  async decideFor(token: string, action: 'approve' | 'reject', by: string): Promise<DecisionOutcome> {
    const state = await this.decide(token, action === 'approve' ? 'approved' : 'rejected', by);
    if (state.kind === 'decided' && state.item.status !== 'pending') return { ok: true, status: state.item.status, decided_by: by };
    if (state.kind === 'unknown' || state.kind === 'live' || state.kind === 'decided') return { ok: false, reason: 'unknown' };
    const item = state.item;
    return { ok: false, reason: state.reason, ...(item ? { status: item.status } : {}), ...(item?.decided_by ? { decided_by: item.decided_by } : {}) };
  }

  private stateOf(link: DecisionLinkRow): LinkState {
    const item = this.queue.find(link.queue_id);
    const dead = this.links.deadReason(link, this.clock.now());
    if (dead) return { kind: 'dead', reason: dead, link, ...(item ? { item } : {}) };
    if (!item) return { kind: 'dead', reason: 'gone', link };
    if (item.status !== 'pending') return { kind: 'dead', reason: 'decided', link, item };
    return { kind: 'live', link, item };
  }
}
