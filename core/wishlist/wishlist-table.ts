import type { Store } from '../storage/store.js';
import { mbidsOf, nameKeyOf, type AlbumIdentity } from '../library/album-keys.js';
import type { WishlistItem, WishlistStatus } from './wishlist-item.schema.js';

// A not_before that is no date never comes due, as `Date.parse(x) <= now` (NaN) never held before.
const NEVER = Number.MAX_SAFE_INTEGER;

// Owned: the library holds the item's mbid or its name key (as LibraryTable.owns answers for a wishlist item).
const OWNED = `(EXISTS (SELECT 1 FROM library_keys WHERE key = w.mbid)
  OR EXISTS (SELECT 1 FROM library_keys WHERE key = w.name_key))`;

/**
 * The wishlist in the database (`wishlist_items`), replacing the core document's wishlist, the waiting wishlist
 * file and the order kept beside them. An item waits (`entered_seq` NULL, status wanted) from the moment it is
 * wanted until its first download hand-off, which numbers it after every item handed off before; lists show the
 * items handed off, latest hand-off first, then the waiting ones, latest first, as they always did.
 *
 * The only module that writes its rows, every write through `rowOf`, so the columns always agree with the record.
 * Writes are synchronous SQL for inside a `store.change`; reads work anywhere.
 */
export class WishlistTable {
  private readonly statements;

  constructor(store: Store) {
    const db = store.db;
    this.statements = {
      insert: db.prepare(`INSERT INTO wishlist_items (id, status, entered_seq, not_before, mbid, name_key, record)
        VALUES (@id, @status, NULL, @not_before, @mbid, @name_key, @record)`),
      update: db.prepare('UPDATE wishlist_items SET status = @status, not_before = @not_before, mbid = @mbid, name_key = @name_key, record = @record WHERE id = @id'),
      enter: db.prepare(`UPDATE wishlist_items SET status = @status, not_before = @not_before, mbid = @mbid, name_key = @name_key, record = @record,
        entered_seq = coalesce((SELECT entered_seq FROM wishlist_items WHERE entered_seq IS NOT NULL ORDER BY entered_seq DESC LIMIT 1), 0) + 1
        WHERE id = @id AND entered_seq IS NULL`),
      remove: db.prepare('DELETE FROM wishlist_items WHERE id = ? RETURNING record').pluck(),
      get: db.prepare('SELECT record FROM wishlist_items WHERE id = ?').pluck(),
      isWaiting: db.prepare('SELECT entered_seq IS NULL FROM wishlist_items WHERE id = ?').pluck(),
      count: db.prepare('SELECT coalesce(sum(n), 0) FROM wishlist_counts').pluck(),
      countOf: db.prepare('SELECT coalesce(sum(n), 0) FROM wishlist_counts WHERE status = ?').pluck(),
      countEntered: db.prepare('SELECT coalesce(sum(n), 0) FROM wishlist_counts WHERE waiting = 0').pluck(),
      countEnteredOf: db.prepare('SELECT coalesce(sum(n), 0) FROM wishlist_counts WHERE waiting = 0 AND status = ?').pluck(),
      // Rows are picked on the index alone, then their records read: a deep page skips index entries, not records.
      enteredPage: db.prepare(`SELECT record FROM wishlist_items WHERE seq IN (
        SELECT seq FROM wishlist_items WHERE entered_seq IS NOT NULL ORDER BY entered_seq DESC LIMIT ? OFFSET ?) ORDER BY entered_seq DESC`).pluck(),
      enteredPageOf: db.prepare(`SELECT record FROM wishlist_items WHERE seq IN (
        SELECT seq FROM wishlist_items WHERE status = ? AND entered_seq IS NOT NULL ORDER BY entered_seq DESC LIMIT ? OFFSET ?) ORDER BY entered_seq DESC`).pluck(),
      waitingPage: db.prepare(`SELECT record FROM wishlist_items WHERE seq IN (
        SELECT seq FROM wishlist_items WHERE entered_seq IS NULL ORDER BY seq DESC LIMIT ? OFFSET ?) ORDER BY seq DESC`).pluck(),
      dueEntered: db.prepare(`SELECT record FROM wishlist_items WHERE status = 'wanted' AND entered_seq IS NOT NULL
        AND (not_before IS NULL OR not_before <= ?) ORDER BY entered_seq LIMIT ?`).pluck(),
      oldestWaiting: db.prepare('SELECT record FROM wishlist_items WHERE entered_seq IS NULL ORDER BY seq LIMIT ?').pluck(),
      // Handed off before waiting, then the latest: the one the old matchers (document first) answered with.
      byMbid: db.prepare('SELECT id FROM wishlist_items WHERE mbid = ? ORDER BY entered_seq IS NULL, entered_seq DESC, seq DESC LIMIT 1').pluck(),
      byName: db.prepare('SELECT id FROM wishlist_items WHERE name_key = ? ORDER BY entered_seq IS NULL, entered_seq DESC, seq DESC LIMIT 1').pluck(),
      owned: db.prepare(`SELECT record FROM wishlist_items w WHERE ${OWNED} ORDER BY entered_seq IS NULL, entered_seq, seq`).pluck(),
    };
  }

  /** Adds an item that waits for its first download (inside a change). */
  insertWaiting(item: WishlistItem): void {
    if (item.status !== 'wanted') throw new Error(`wishlist item "${item.id}" is ${item.status}; only a wanted item can wait`);
    this.statements.insert.run(rowOf(item));
  }

  /**
   * Its first download hand-off (inside a change): writes the record (`downloading`, usually) and numbers the item
   * after every item handed off before. Throws unless the item waits.
   */
  enter(item: WishlistItem): void {
    if (this.statements.enter.run(rowOf(item)).changes === 0) throw new Error(`wishlist item "${item.id}" is not waiting for its first download`);
  }

  /** Rewrites an item's record (inside a change); it keeps its place. Throws for an unknown id. */
  update(item: WishlistItem): void {
    if (this.statements.update.run(rowOf(item)).changes === 0) throw new Error(`wishlist item "${item.id}" is not on the wishlist`);
  }

  /** Takes an item off the wishlist (inside a change); answers its record, undefined when it was not there. */
  remove(id: string): WishlistItem | undefined {
    return parsed(this.statements.remove.get(id));
  }

  get(id: string): WishlistItem | undefined {
    return parsed(this.statements.get.get(id));
  }

  /** Whether `id` is on the wishlist and waits for its first download. */
  isWaiting(id: string): boolean {
    return this.statements.isWaiting.get(id) === 1;
  }

  /** Items (of `status`), waiting ones included: they are all wanted. */
  count(status?: WishlistStatus): number {
    return Number(status === undefined ? this.statements.count.get() : this.statements.countOf.get(status));
  }

  /**
   * A page: the items handed off (of `status`), latest hand-off first, then, when `status` is absent or wanted, the
   * items waiting for their first download, latest first. `total` counts both.
   */
  page(offset: number, limit: number, status?: WishlistStatus): { items: WishlistItem[]; total: number } {
    const entered = Number(status === undefined ? this.statements.countEntered.get() : this.statements.countEnteredOf.get(status));
    const records = (status === undefined ? this.statements.enteredPage.all(limit, offset) : this.statements.enteredPageOf.all(status, limit, offset)) as string[];
    if ((status === undefined || status === 'wanted') && records.length < limit) {
      records.push(...(this.statements.waitingPage.all(limit - records.length, Math.max(0, offset - entered)) as string[]));
    }
    return { items: records.map((record) => JSON.parse(record) as WishlistItem), total: this.count(status) };
  }

  /**
   * What a download may start for, at most `limit`: items wanted again after a failed attempt whose `not_before`
   * has passed (they have waited longest), oldest hand-off first, then those waiting for their first download,
   * oldest first.
   */
  dueForDownload(now: number, limit: number): WishlistItem[] {
    if (limit <= 0) return [];
    const records = this.statements.dueEntered.all(now, limit) as string[];
    if (records.length < limit) records.push(...(this.statements.oldestWaiting.all(limit - records.length) as string[]));
    return records.map((record) => JSON.parse(record) as WishlistItem);
  }

  /** The id of the item wanting `album`, by mbid (its release group's too), else by name key. */
  findWanted(album: AlbumIdentity): string | undefined {
    for (const mbid of mbidsOf(album)) {
      const id = this.statements.byMbid.get(mbid) as string | undefined;
      if (id !== undefined) return id;
    }
    const name = nameKeyOf(album);
    return name === undefined ? undefined : (this.statements.byName.get(name) as string | undefined);
  }

  /** Items the library owns (by mbid or name key), handed off ones first: what a library sync takes off. */
  owned(): WishlistItem[] {
    return (this.statements.owned.all() as string[]).map((record) => JSON.parse(record) as WishlistItem);
  }
}

function rowOf(item: WishlistItem): Record<string, string | number | null> {
  // The state of its download is added to answers, never stored.
  const { download_state: _answerOnly, ...stored } = item;
  const notBefore = stored.not_before ? Date.parse(stored.not_before) : undefined;
  return {
    id: stored.id,
    status: stored.status,
    not_before: notBefore === undefined ? null : Number.isNaN(notBefore) ? NEVER : notBefore,
    mbid: stored.mbid?.toLowerCase() ?? null,
    name_key: nameKeyOf(stored) ?? null,
    record: JSON.stringify(stored),
  };
}

function parsed(record: unknown): WishlistItem | undefined {
  return typeof record === 'string' ? (JSON.parse(record) as WishlistItem) : undefined;
}
