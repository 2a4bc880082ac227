import { normalizeName } from '@crateflow/sdk';
import { nameKeyOf } from '../core/library/album-keys.js';
import type { QueueItem } from '../core/queue/queue-item.schema.js';
import { foldForSorting } from '../core/sorting/fold-for-sorting.js';
import type { Store } from '../core/storage/store.js';
import { itemTypeOf, wishlistItemFrom } from '../core/wishlist/wishlist-item-from.js';
import { WishlistTable } from '../core/wishlist/wishlist-table.js';
import { benchId } from './bench-id.js';

/** Items per transaction: big enough that a million take seconds, small enough that the WAL stays tens of MB. */
const PER_TRANSACTION = 20_000;
/** One in PENDING_EVERY items stays pending (10%) in the decided mixes; the others are decided, half each way. */
const PENDING_EVERY = 10;
const YEAR_MS = 365 * 24 * 3600 * 1000;

/**
 * What a stored queue of N items is made of:
 * - `pending`: all N pending (a queue nobody has looked at, the most the live bound allows);
 * - `decided`: a year of use, 90% decided, half approved and half rejected, and the approved albums downloaded
 *   since (the library holds them, the wishlist no longer does, their finished downloads are archived);
 * - `waiting`: the same year with nothing downloaded, so the 45% approved all wait on the wishlist.
 */
export type QueueMix = 'pending' | 'decided' | 'waiting';
export const QUEUE_MIXES: readonly QueueMix[] = ['pending', 'decided', 'waiting'];

export interface PendingItem {
  id: string;
  mbid: string;
}

/** An approved album: what its download and its library entry are made from. */
export interface ApprovedAlbum {
  artist: string;
  album: string;
  wishlistId: string;
  decidedAt: string;
}

export interface FilledQueue {
  /** The items left pending, in the order they were added. */
  pending: PendingItem[];
  approved: ApprovedAlbum[];
  rejected: number;
  /** A few stored items, first and last among them, for queue-rows-agree.ts to write again through QueueTable. */
  sample: QueueItem[];
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
 * Writes `size` queue items of `mix` into a stopped service's store, as a year of adds and decisions leaves them:
 * added one after another over the past year, each decided (in the order added) soon after it came, an approval
 * waiting on the wishlist (WishlistTable, `waiting`) or long since downloaded (`decided`). No events: a year's were
 * delivered and pruned long ago.
 *
 * Each queue row is inserted once, in its final state, with the columns QueueTable derives from the record: the
 * table itself would insert every item pending and then rewrite nine in ten as decided, three times the work, and a
 * million items would take minutes instead of seconds. queue-rows-agree.ts checks the rows against the table's own.
 */
export function fillQueue(store: Store, size: number, mix: QueueMix): FilledQueue {
  const insert = store.db.prepare(`INSERT INTO queue_items (id, status, source, added_at, score, year, name_sort, search_text, mbid, name_key, decided_seq, record)
    VALUES (@id, @status, @source, @added_at, @score, @year, @name_sort, @search_text, @mbid, @name_key, @decided_seq, @record)`);
  const wishlist = new WishlistTable(store);
  const filled: FilledQueue = { pending: [], approved: [], rejected: 0, sample: [] };
  const sampled = new Set([0, 1, 2, Math.floor(size / 2), size - 2, size - 1]);
  const firstAddedAt = Date.now() - YEAR_MS;
  const step = YEAR_MS / size;
  let decisions = 0;
  for (let from = 0; from < size; from += PER_TRANSACTION) {
    // A plain transaction, not store.change(): see fill-data-dir.ts.
    store.db.transaction(() => {
      for (let index = from; index < Math.min(size, from + PER_TRANSACTION); index++) {
        const item = itemAt(index, mix, firstAddedAt, step);
        if (item.status === 'pending') filled.pending.push({ id: item.id, mbid: item.mbid ?? '' });
        else if (item.status === 'rejected') filled.rejected++;
        else {
          const wishlistId = item.wishlist_id ?? '';
          const decidedAt = item.decided_at ?? '';
          // Downloaded since (`decided`): the library sync took the item off the wishlist; else it still waits there.
          if (mix === 'waiting') wishlist.insertWaiting(wishlistItemFrom(item, { id: wishlistId, added_at: decidedAt, queue_id: item.id }));
          filled.approved.push({ artist: item.artist, album: item.album ?? '', wishlistId, decidedAt });
        }
        insert.run(queueRowOf(item, item.status === 'pending' ? null : ++decisions));
        if (sampled.has(index)) filled.sample.push(item);
      }
    }).immediate();
  }
  return filled;
}

/** The item added `index`-th, pending or decided as `mix` has it. */
function itemAt(index: number, mix: QueueMix, firstAddedAt: number, step: number): QueueItem {
  const addedAt = firstAddedAt + index * step;
  const candidate = benchCandidate(index);
  const item: QueueItem = { id: benchId(addedAt, 2 * index), ...candidate, type: itemTypeOf(candidate), status: 'pending', added_at: new Date(addedAt).toISOString() };
  if (mix === 'pending' || index % PENDING_EVERY === 0) return item;
  const decidedAt = addedAt + step / 2;
  // Of the decided ones (nine in ten), every other is approved, as the fill through the API always did.
  const decidedOrdinal = index - Math.floor(index / PENDING_EVERY) - 1;
  if (decidedOrdinal % 2 === 1) return { ...item, status: 'rejected', decided_at: new Date(decidedAt).toISOString() };
  return { ...item, status: 'approved', decided_at: new Date(decidedAt).toISOString(), wishlist_id: benchId(decidedAt, 2 * index + 1) };
}

/** The columns QueueTable writes for `item` (core/queue/queue-table.ts rowOf). */
function queueRowOf(item: QueueItem, decidedSeq: number | null): Record<string, string | number | null> {
  return {
    id: item.id,
    status: item.status,
    source: item.source,
    added_at: item.added_at,
    score: item.score ?? null,
    year: item.year ?? 0,
    name_sort: `${sortPrefix(item.artist)}\u0000${sortPrefix(item.album ?? '')}`,
    search_text: ` ${normalizeName([item.artist, item.album ?? '', item.title ?? '', item.source].join(' '))} `,
    mbid: item.mbid?.toLowerCase() ?? null,
    name_key: nameKeyOf(item) ?? null,
    decided_seq: decidedSeq,
    record: JSON.stringify(item),
  };
}

/** QueueTable's A-Z key looks at the first 100 characters of a name (its SORT_PREFIX_CHARACTERS). */
function sortPrefix(name: string): string {
  const folded = foldForSorting(name);
  return folded.length <= 100 ? folded : Array.from(folded).slice(0, 100).join('');
}
