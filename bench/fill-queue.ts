import { performance } from 'node:perf_hooks';
import { postJson } from './post-json.js';

const BATCH = 1000;
/** One in PENDING_EVERY items stays pending (10%); the others are decided, half approved, half rejected. */
const PENDING_EVERY = 10;

export interface PendingItem {
  id: string;
  mbid: string;
}

export interface FilledQueue {
  /** The items left pending, in the order they were added. */
  pending: PendingItem[];
  /** The candidate indices (see benchCandidate) that were approved onto the wishlist. */
  approved: number[];
  addMs: number;
  decideMs: number;
}

/** A UUID-shaped MusicBrainz id that is unique per index (the queue only checks the shape). */
export function benchMbid(index: number): string {
  return `5ca1ab1e-0000-4000-8000-${index.toString(16).padStart(12, '0')}`;
}

/** A candidate unique by mbid and by artist + album, as the queue's de-duplication requires. */
export function benchCandidate(index: number, prefix = 'Scale') {
  return { artist: `${prefix} Artist ${index}`, album: `${prefix} Album ${index}`, mbid: benchMbid(index), source: 'bench', score: index % 100 };
}

/**
 * Fills a running service's queue through its public API the way a year of use would leave it: `size` items,
 * 90% decided (approved or rejected, half each) and 10% pending. Candidates go in batches of 1000 (the most one
 * POST /api/v1/queue takes) and each batch is decided by ids before the next is added, as a user would: the
 * store never holds more live (undecided) items than a year of use leaves, so a limit on live items is not hit.
 */
export async function fillQueue(baseUrl: string, size: number): Promise<FilledQueue> {
  const pending: PendingItem[] = [];
  const approved: number[] = [];
  let addMs = 0;
  let decideMs = 0;
  for (let offset = 0; offset < size; offset += BATCH) {
    const addStarted = performance.now();
    const batch = Array.from({ length: Math.min(BATCH, size - offset) }, (_, i) => benchCandidate(offset + i));
    const added = itemsOf(await postJson(`${baseUrl}/api/v1/queue`, batch, 201));
    addMs += performance.now() - addStarted;
    if (added.length !== batch.length) throw new Error(`expected ${batch.length} new queue items, got ${added.length} (duplicates skipped?)`);

    const decideStarted = performance.now();
    const decided = added.map((item, i) => ({ ...item, index: offset + i })).filter((item) => item.index % PENDING_EVERY !== 0);
    pending.push(...added.filter((_, i) => (offset + i) % PENDING_EVERY === 0));
    const approving = decided.filter((_, i) => i % 2 === 0);
    approved.push(...approving.map((item) => item.index));
    await decide(baseUrl, 'approve', approving);
    await decide(baseUrl, 'reject', decided.filter((_, i) => i % 2 === 1));
    decideMs += performance.now() - decideStarted;
  }
  return { pending, approved, addMs, decideMs };
}

async function decide(baseUrl: string, verb: 'approve' | 'reject', items: readonly PendingItem[]): Promise<void> {
  if (items.length === 0) return;
  const answer = await postJson(`${baseUrl}/api/v1/queue/${verb}`, { ids: items.map((item) => item.id) });
  const count = answer && typeof answer === 'object' && 'count' in answer ? answer.count : undefined;
  if (count !== items.length) throw new Error(`POST /api/v1/queue/${verb} decided ${String(count)} of ${items.length} items`);
}

/** The `{id, mbid}` of every item in a POST /api/v1/queue answer (`{ items, duplicates }`). */
function itemsOf(body: unknown): PendingItem[] {
  if (!body || typeof body !== 'object' || !('items' in body) || !Array.isArray(body.items)) throw new Error('POST /api/v1/queue answered without items');
  return body.items.flatMap((item: unknown) =>
    item && typeof item === 'object' && 'id' in item && typeof item.id === 'string' && 'mbid' in item && typeof item.mbid === 'string' ? [{ id: item.id, mbid: item.mbid }] : [],
  );
}
