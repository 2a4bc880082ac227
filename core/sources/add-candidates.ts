import type { SourceCandidate } from '@crateflow/sdk';
import type { Candidate } from '../queue/queue-item.schema.js';
import type { QueueService } from '../queue/queue-service.js';
import { coverUrlOf } from '../metadata/release-group-fields.js';
import { withoutControlCharacters } from '../schema/printable-text.js';

/** The counts of a source run, as its job's summary. */
export interface RunCounts {
  added: number;
  /** Already pending, approved or on the wishlist. */
  duplicate: number;
  /** Already in the library. */
  owned: number;
  /** Rejected before: never proposed again. */
  rejected_before: number;
  /** Refused by the SourceCandidate schema. */
  invalid: number;
}

export const emptyRunCounts = (): RunCounts => ({ added: 0, duplicate: 0, owned: 0, rejected_before: 0, invalid: 0 });

// POST /api/v1/queue's limit for one request; a source's batch is added in slices of it.
const SLICE = 1000;

/**
 * Adds a source's valid candidates to the pending queue through the queue's own add path (the same
 * de-duplication as POST /api/v1/queue), and counts each one by where its duplicate was.
 */
export async function addCandidates(queue: QueueService, sourceName: string, candidates: readonly SourceCandidate[], counts: RunCounts): Promise<void> {
  for (let start = 0; start < candidates.length; start += SLICE) {
    const result = await queue.add(candidates.slice(start, start + SLICE).map((c) => toQueueCandidate(c, sourceName)));
    counts.added += result.items.length;
    for (const { duplicate_of: match } of result.skipped) {
      if (match.in === 'library') counts.owned++;
      else if (match.in === 'queue' && match.status === 'rejected') counts.rejected_before++;
      else counts.duplicate++;
    }
  }
}

// A name with a control character in it (a stray NUL in a tag or an upstream answer) is taken without them rather
// than refused: the API refuses such names, but one odd name must not cost a source its run or its other candidates.
function toQueueCandidate(candidate: SourceCandidate, sourceName: string): Candidate {
  return {
    artist: withoutControlCharacters(candidate.artist),
    ...(candidate.album !== undefined ? { album: withoutControlCharacters(candidate.album) } : {}),
    ...(candidate.title !== undefined ? { title: withoutControlCharacters(candidate.title) } : {}),
    mbid: candidate.mbid,
    type: candidate.type,
    source: sourceName,
    score: candidate.score,
    ...(candidate.year !== undefined ? { year: candidate.year } : {}),
    // A source's candidate is a release group: its cover is served by Crateflow (fetched on first view).
    cover_url: coverUrlOf(candidate.mbid),
    reasons: candidate.reasons,
  };
}
