import { normalizeName } from '@crateflow/sdk';
import type { Store } from '../storage/store.js';
import { nameKeyOf, type AlbumIdentity } from '../library/album-keys.js';
import { foldForSorting } from '../sorting/fold-for-sorting.js';
import { prefixPattern } from './like-pattern.js';
import type { QueueItem, QueueStatus } from './queue-item.schema.js';

export type DecidedStatus = Exclude<QueueStatus, 'pending'>;
export type PendingSort = 'added_at' | 'score' | 'artist' | 'year';
export type SortOrder = 'asc' | 'desc';

export interface PendingFilter {
  sort: PendingSort;
  order: SortOrder;
  source?: string;
  q?: string;
  /** Leave out albums the person has or wants already (in the library, or on the wishlist). */
  hide_owned?: boolean;
}

/** Where an item stands in the order pending items were added. */
export type QueuePosition = Pick<QueueItem, 'added_at' | 'id'>;

/** A queue item an album matched, with its status. */
export interface QueueMatch {
  id: string;
  status: QueueStatus;
}

const SORT_COLUMN: Record<PendingSort, string> = { added_at: 'added_at', score: 'score', artist: 'name_sort', year: 'year' };

// An item is owned when the library holds one of its keys, or a wishlist item wants it (by mbid, else by name).
const OWNED = `(EXISTS (SELECT 1 FROM library_keys WHERE key = q.mbid)
  OR EXISTS (SELECT 1 FROM library_keys WHERE key = q.name_key)
  OR EXISTS (SELECT 1 FROM wishlist_items w WHERE w.mbid = q.mbid)
  OR EXISTS (SELECT 1 FROM wishlist_items w WHERE w.name_key = q.name_key))`;

/**
 * The queue in the database: pending items and decided ones in one table (`queue_items`), decided ones numbered
 * in the order they were decided. The only module that writes its rows, so the columns always agree with the
 * record: every write goes through `rowOf`.
 */
export class QueueTable {
  private readonly statements;

  constructor(private readonly store: Store) {
    const db = store.db;
    this.statements = {
      insert: db.prepare(`INSERT INTO queue_items (id, status, source, added_at, score, year, name_sort, search_text, mbid, name_key, decided_seq, requested_by, auto_approved_at, record)
        VALUES (@id, @status, @source, @added_at, @score, @year, @name_sort, @search_text, @mbid, @name_key, @decided_seq, @requested_by, @auto_approved_at, @record)`),
      update: db.prepare(`UPDATE queue_items SET status = @status, source = @source, added_at = @added_at, score = @score, year = @year,
        name_sort = @name_sort, search_text = @search_text, mbid = @mbid, name_key = @name_key, decided_seq = @decided_seq, requested_by = @requested_by,
        auto_approved_at = @auto_approved_at, record = @record WHERE id = @id`),
      get: db.prepare('SELECT record FROM queue_items WHERE id = ?').pluck(),
      statusOf: db.prepare('SELECT status FROM queue_items WHERE id = ?').pluck(),
      nextDecision: db.prepare('SELECT coalesce(max(decided_seq), 0) + 1 FROM queue_items').pluck(),
      // Sets only what a decision changes: SQLite leaves alone every index none of whose columns is set (by mbid, by
      // name), where setting every column rewrote them all. The other columns must still match the record.
      decide: db.prepare(`UPDATE queue_items SET status = @status, decided_seq = @decided_seq, record = @record
        WHERE id = @id AND status = 'pending' AND source = @source AND added_at = @added_at AND score IS @score AND year = @year
        AND name_sort = @name_sort AND search_text = @search_text AND mbid IS @mbid AND name_key IS @name_key
        AND requested_by IS @requested_by AND auto_approved_at IS @auto_approved_at`),
      count: db.prepare('SELECT coalesce(sum(n), 0) FROM queue_counts WHERE status = ?').pluck(),
      countOfSource: db.prepare('SELECT coalesce(sum(n), 0) FROM queue_counts WHERE status = ? AND source = ?').pluck(),
      sources: db.prepare("SELECT source AS name, n AS pending FROM queue_counts WHERE status = 'pending' AND n > 0"),
      // Each lookup names its index (INDEXED BY: SQLite then uses it, or refuses the statement when it cannot). Left
      // to the planner, statistics that `PRAGMA optimize` took while every item was pending made it answer "the
      // latest decision on this mbid" by walking every decision newest first: 23 s for one queue page at 330,000.
      decidedPage: db.prepare('SELECT decided_seq AS seq, record FROM queue_items INDEXED BY queue_decided WHERE status = ? AND decided_seq IS NOT NULL ORDER BY decided_seq DESC LIMIT ? OFFSET ?'),
      // Keyset paging: the index on (status, decided_seq) is entered at the cursor, so a page 450,000 decisions deep
      // costs what the first one does (OFFSET walks every row it skips).
      decidedBefore: db.prepare('SELECT decided_seq AS seq, record FROM queue_items INDEXED BY queue_decided WHERE status = ? AND decided_seq IS NOT NULL AND decided_seq < ? ORDER BY decided_seq DESC LIMIT ?'),
      waitingRequests: db.prepare("SELECT count(*) FROM queue_items INDEXED BY queue_requests_by_user WHERE requested_by = ? AND status = 'pending'").pluck(),
      autoApprovedSince: db.prepare('SELECT count(*) FROM queue_items INDEXED BY queue_auto_approved WHERE requested_by = ? AND auto_approved_at >= ?').pluck(),
      pendingByMbid: db.prepare("SELECT id FROM queue_items INDEXED BY queue_by_mbid WHERE mbid = ? AND status = 'pending' ORDER BY seq DESC LIMIT 1").pluck(),
      pendingByName: db.prepare("SELECT id FROM queue_items INDEXED BY queue_by_name_key WHERE name_key = ? AND status = 'pending' ORDER BY seq DESC LIMIT 1").pluck(),
      decidedByMbid: db.prepare('SELECT id, status FROM queue_items INDEXED BY queue_by_mbid WHERE mbid = ? AND decided_seq IS NOT NULL ORDER BY decided_seq DESC LIMIT 1'),
      decidedByName: db.prepare('SELECT id, status FROM queue_items INDEXED BY queue_by_name_key WHERE name_key = ? AND decided_seq IS NOT NULL ORDER BY decided_seq DESC LIMIT 1'),
      pendingIdsOldestFirst: db.prepare("SELECT id FROM queue_items INDEXED BY queue_pending_by_added WHERE status = 'pending' ORDER BY added_at, id").pluck(),
      // On their own index (schema 2): one step costs the same whether 10 or 1,000,000 items are pending.
      firstWithoutMbid: db.prepare("SELECT record FROM queue_items INDEXED BY queue_pending_without_mbid WHERE status = 'pending' AND mbid IS NULL ORDER BY added_at, id LIMIT 1").pluck(),
      nextWithoutMbid: db.prepare("SELECT record FROM queue_items INDEXED BY queue_pending_without_mbid WHERE status = 'pending' AND mbid IS NULL AND (added_at, id) > (?, ?) ORDER BY added_at, id LIMIT 1").pluck(),
    };
  }

  /** Adds a new pending item (inside a change). */
  insert(item: QueueItem): void {
    this.statements.insert.run(rowOf(item, null));
  }

  /** Rewrites a pending item's record (inside a change): fields filled in later. */
  replacePending(item: QueueItem): void {
    this.statements.update.run(rowOf(item, null));
  }

  /** Records a decision (inside a change): the item is numbered after every earlier decision. */
  decide(item: QueueItem & { status: DecidedStatus }): void {
    const row = rowOf(item, Number(this.statements.nextDecision.get()));
    if (this.statements.decide.run(row).changes === 0) throw new Error(`queue item "${item.id}" is not pending, or its decision changes more than status and record`);
  }

  /** Makes a decided item pending again (inside a change). */
  restore(item: QueueItem & { status: 'pending' }): void {
    this.statements.update.run(rowOf(item, null));
  }

  get(id: string): QueueItem | undefined {
    const record = this.statements.get.get(id) as string | undefined;
    return record === undefined ? undefined : (JSON.parse(record) as QueueItem);
  }

  statusOf(id: string): QueueStatus | undefined {
    return this.statements.statusOf.get(id) as QueueStatus | undefined;
  }

  count(status: QueueStatus, source?: string): number {
    return Number(source === undefined ? this.statements.count.get(status) : this.statements.countOfSource.get(status, source));
  }

  /** The sources of pending items, most items first, then by name. */
  pendingSources(): { name: string; pending: number }[] {
    const rows = this.statements.sources.all() as { name: string; pending: number }[];
    return rows.sort((a, b) => b.pending - a.pending || a.name.localeCompare(b.name));
  }

  /**
   * Decided items of `status`, the latest decision first: `offset` of them skipped, or (with `before`, the cursor a
   * previous page gave) those decided before it. `nextBefore` is the cursor of the page after, if there is one.
   */
  decidedPage(status: DecidedStatus, where: { offset: number } | { before: number }, limit: number): { items: QueueItem[]; total: number; nextBefore?: number } {
    // One row more than asked says whether a next page exists without counting.
    const rows = ('before' in where ? this.statements.decidedBefore.all(status, where.before, limit + 1) : this.statements.decidedPage.all(status, limit + 1, where.offset)) as { seq: number; record: string }[];
    const page = rows.slice(0, limit);
    const items = page.map((row) => JSON.parse(row.record) as QueueItem);
    const last = rows.length > limit ? page.at(-1) : undefined;
    return { items, total: this.count(status), ...(last ? { nextBefore: last.seq } : {}) };
  }

  /** How many of `user`'s requests wait for an admin. */
  waitingRequestsOf(user: string): number {
    return Number(this.statements.waitingRequests.get(user));
  }

  /** How many of `user`'s requests the auto-approve rule let through since `since` (ms): their quota's use. */
  autoApprovedSince(user: string, since: number): number {
    return Number(this.statements.autoApprovedSince.get(user, since));
  }

  /** The pending item for this album, by mbid first, else by name. */
  findPending(album: AlbumIdentity): string | undefined {
    const mbid = album.mbid?.toLowerCase();
    const byMbid = mbid === undefined ? undefined : (this.statements.pendingByMbid.get(mbid) as string | undefined);
    if (byMbid !== undefined) return byMbid;
    const name = nameKeyOf(album);
    return name === undefined ? undefined : (this.statements.pendingByName.get(name) as string | undefined);
  }

  /** The latest decision on this album, by mbid first, else by name. */
  findDecided(album: AlbumIdentity): QueueMatch | undefined {
    const mbid = album.mbid?.toLowerCase();
    const byMbid = mbid === undefined ? undefined : (this.statements.decidedByMbid.get(mbid) as QueueMatch | undefined);
    if (byMbid !== undefined) return byMbid;
    const name = nameKeyOf(album);
    return name === undefined ? undefined : (this.statements.decidedByName.get(name) as QueueMatch | undefined);
  }

  /** Every pending id, oldest first (approving everything). */
  pendingIdsOldestFirst(): string[] {
    return this.statements.pendingIdsOldestFirst.all() as string[];
  }

  /**
   * The oldest pending item without an mbid after `after` (in the order added_at, id), or the oldest of all: one
   * step of background enrichment's walk.
   */
  nextWithoutMbid(after: QueuePosition | undefined): QueueItem | undefined {
    const record = (after === undefined ? this.statements.firstWithoutMbid.get() : this.statements.nextWithoutMbid.get(after.added_at, after.id)) as string | undefined;
    return record === undefined ? undefined : (JSON.parse(record) as QueueItem);
  }

  /**
   * A page of pending items. Ties break on the id (time-ordered) in the same direction, so pages are stable. The
   * total of an unfiltered or source-filtered view is read from the counts the database keeps.
   */
  pendingPage(filter: PendingFilter, offset: number, limit: number): { items: QueueItem[]; total: number } {
    const where = ["q.status = 'pending'"];
    const params: (string | number)[] = [];
    if (filter.source !== undefined) {
      where.push('q.source = ?');
      params.push(filter.source);
    }
    const terms = filter.q ? normalizeName(filter.q).split(' ').filter(Boolean) : [];
    for (const term of terms) {
      // Word prefixes: "low" finds Low, not Slowdive.
      where.push("q.search_text LIKE ? ESCAPE '\\'");
      params.push(prefixPattern(term));
    }
    if (filter.hide_owned) where.push(`NOT ${OWNED}`);
    const direction = filter.order === 'asc' ? 'ASC' : 'DESC';
    const column = SORT_COLUMN[filter.sort];
    const sql = `SELECT record FROM queue_items q WHERE ${where.join(' AND ')} ORDER BY q.${column} ${direction}, q.id ${direction} LIMIT ? OFFSET ?`;
    const records = this.store.db.prepare(sql).pluck().all(...params, limit, offset) as string[];
    const total = terms.length === 0 && !filter.hide_owned
      ? this.count('pending', filter.source)
      : Number(this.store.db.prepare(`SELECT count(*) FROM queue_items q WHERE ${where.join(' AND ')}`).pluck().get(...params));
    return { items: records.map((record) => JSON.parse(record) as QueueItem), total };
  }
}

function rowOf(item: QueueItem, decidedSeq: number | null): Record<string, string | number | null> {
  return {
    id: item.id,
    status: item.status,
    source: item.source,
    added_at: item.added_at,
    score: item.score ?? null,
    // A missing year sorts as 0, a missing score lowest (NULL), as the queue page always showed them.
    year: item.year ?? 0,
    name_sort: `${sortPrefix(item.artist)}\u0000${sortPrefix(item.album ?? '')}`,
    search_text: ` ${normalizeName([item.artist, item.album ?? '', item.title ?? '', item.source].join(' '))} `,
    mbid: item.mbid?.toLowerCase() ?? null,
    name_key: nameKeyOf(item) ?? null,
    decided_seq: decidedSeq,
    requested_by: item.requested_by ?? null,
    // A request the auto-approve rule let through counts against its requester's quota from when it was made.
    auto_approved_at: item.auto_approved === true ? Date.parse(item.added_at) : null,
    record: JSON.stringify(item),
  };
}

/**
 * How much of an artist or album name the A-Z order looks at. Names may be 1,000 characters long, and an index
 * entry of twice that spills into an overflow page of its own (a 5,000-item queue of such names held 23 MB of
 * index, most of it empty); past 100 characters, items keep their order by id.
 */
const SORT_PREFIX_CHARACTERS = 100;

function sortPrefix(name: string): string {
  const folded = foldForSorting(name);
  return folded.length <= SORT_PREFIX_CHARACTERS ? folded : Array.from(folded).slice(0, SORT_PREFIX_CHARACTERS).join('');
}
