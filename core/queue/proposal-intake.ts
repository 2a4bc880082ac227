import type { ProposedCandidate } from './proposed-candidate.schema.js';
import type { Candidate } from './queue-item.schema.js';

/**
 * What POST /queue and POST /wishlist do before storing: complete candidates that give only an mbid. (Albums
 * stored without an mbid are enriched in the background, from the `queue_added` event, without the request waiting.)
 */
export interface ProposalIntake {
  /** `pathOf(index)` names a candidate in problems (`body`, or `body[3]` in a batch). */
  resolve(proposed: readonly ProposedCandidate[], pathOf: (index: number) => string): Promise<Candidate[]>;
}
