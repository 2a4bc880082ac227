import type { ProposedCandidate } from './proposed-candidate.schema.js';
import type { Candidate, QueueItem } from './queue-item.schema.js';

/**
 * What POST /queue and POST /wishlist do around storing: complete candidates that give only an mbid (before
 * storing), and hand items stored without one to background enrichment (after, without waiting).
 */
export interface ProposalIntake {
  /** `pathOf(index)` names a candidate in problems (`body`, or `body[3]` in a batch). */
  resolve(proposed: readonly ProposedCandidate[], pathOf: (index: number) => string): Promise<Candidate[]>;
  added(items: readonly QueueItem[]): void;
}
