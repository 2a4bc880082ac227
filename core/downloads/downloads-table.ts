import type { Store } from '../storage/store.js';
import type { Download } from './download.schema.js';

export type DownloadState = Download['state'];
export type ActiveState = Extract<DownloadState, 'queued' | 'searching' | 'downloading'>;

const STATES: readonly DownloadState[] = ['queued', 'searching', 'downloading', 'completed', 'failed'];

/**
 * Downloads in the database (`downloads`), replacing the core document's downloads and the archive of finished
 * ones. A download is live while its wishlist item is on the wishlist; when the item goes, a completed download is
 * archived (kept and listed after the live ones, most recently archived first: history worth keeping) and any other
 * is deleted. Lists read as before: live downloads newest first, then archived ones.
 *
 * The only module that writes its rows, every write through `rowOf`, so the columns always agree with the record.
 * Writes are synchronous SQL for inside a `store.change`; reads work anywhere.
 */
export class DownloadsTable {
  private readonly statements;

  constructor(store: Store) {
    const db = store.db;
    this.statements = {
      insert: db.prepare('INSERT INTO downloads (id, wishlist_id, state, archived_seq, record) VALUES (@id, @wishlist_id, @state, NULL, @record)'),
      update: db.prepare('UPDATE downloads SET wishlist_id = @wishlist_id, state = @state, record = @record WHERE id = @id AND archived_seq IS NULL'),
      get: db.prepare('SELECT record FROM downloads WHERE id = ?').pluck(),
      isArchived: db.prepare('SELECT archived_seq IS NOT NULL FROM downloads WHERE id = ?').pluck(),
      counts: db.prepare('SELECT state, sum(n) AS n FROM download_counts GROUP BY state'),
      count: db.prepare('SELECT coalesce(sum(n), 0) FROM download_counts').pluck(),
      countOf: db.prepare('SELECT coalesce(sum(n), 0) FROM download_counts WHERE state = ?').pluck(),
      liveCount: db.prepare('SELECT coalesce(sum(n), 0) FROM download_counts WHERE archived = 0').pluck(),
      liveCountOf: db.prepare('SELECT coalesce(sum(n), 0) FROM download_counts WHERE archived = 0 AND state = ?').pluck(),
      // Rows are picked on the index alone, then their records read: a deep page skips index entries, not records.
      livePage: db.prepare(`SELECT record FROM downloads WHERE seq IN (
        SELECT seq FROM downloads WHERE archived_seq IS NULL ORDER BY seq DESC LIMIT ? OFFSET ?) ORDER BY seq DESC`).pluck(),
      livePageOf: db.prepare(`SELECT record FROM downloads WHERE seq IN (
        SELECT seq FROM downloads WHERE state = ? AND archived_seq IS NULL ORDER BY seq DESC LIMIT ? OFFSET ?) ORDER BY seq DESC`).pluck(),
      archivedPage: db.prepare(`SELECT record FROM downloads WHERE seq IN (
        SELECT seq FROM downloads WHERE archived_seq IS NOT NULL ORDER BY archived_seq DESC LIMIT ? OFFSET ?) ORDER BY archived_seq DESC`).pluck(),
      archivedPageOf: db.prepare(`SELECT record FROM downloads WHERE seq IN (
        SELECT seq FROM downloads WHERE state = ? AND archived_seq IS NOT NULL ORDER BY archived_seq DESC LIMIT ? OFFSET ?) ORDER BY archived_seq DESC`).pluck(),
      active: db.prepare("SELECT record FROM downloads WHERE state IN ('queued', 'searching', 'downloading') AND archived_seq IS NULL ORDER BY seq").pluck(),
      latestFor: db.prepare('SELECT record FROM downloads WHERE wishlist_id = ? AND archived_seq IS NULL ORDER BY seq DESC LIMIT 1').pluck(),
      latestOfStateFor: db.prepare('SELECT record FROM downloads WHERE wishlist_id = ? AND state = ? AND archived_seq IS NULL ORDER BY seq DESC LIMIT 1').pluck(),
      // A list of ids is bound as one JSON array: any number of them, and still a bound parameter.
      activeStates: db.prepare(`SELECT wishlist_id, state FROM downloads WHERE wishlist_id IN (SELECT value FROM json_each(?))
        AND state IN ('queued', 'searching', 'downloading') AND archived_seq IS NULL ORDER BY seq`),
      ofWishlistItems: db.prepare('SELECT record FROM downloads WHERE wishlist_id IN (SELECT value FROM json_each(?)) AND archived_seq IS NULL ORDER BY seq').pluck(),
      // One statement per step, not one per download: a library sync can retire tens of thousands at once.
      // The numbers are made in the FROM subquery, which a window function makes SQLite compute whole first.
      archiveCompleted: db.prepare(`UPDATE downloads SET archived_seq = picked.n
        FROM (SELECT seq, row_number() OVER (ORDER BY seq)
            + coalesce((SELECT archived_seq FROM downloads WHERE archived_seq IS NOT NULL ORDER BY archived_seq DESC LIMIT 1), 0) AS n
          FROM downloads WHERE wishlist_id IN (SELECT value FROM json_each(?)) AND archived_seq IS NULL AND state = 'completed') AS picked
        WHERE downloads.seq = picked.seq`),
      deleteLive: db.prepare('DELETE FROM downloads WHERE wishlist_id IN (SELECT value FROM json_each(?)) AND archived_seq IS NULL'),
    };
  }

  /** Adds a new download (inside a change). */
  insert(download: Download): void {
    this.statements.insert.run(rowOf(download));
  }

  /** Rewrites a live download's record (inside a change); it keeps its place. Throws for one archived or unknown. */
  update(download: Download): void {
    if (this.statements.update.run(rowOf(download)).changes === 0) throw new Error(`download "${download.id}" is archived or unknown; only a live download changes`);
  }

  /**
   * Takes the downloads of wishlist items being removed out of the live ones (inside the change that removes them):
   * a completed download is archived, numbered after every one archived before (in the order they were created),
   * and any other is deleted (its client was told to cancel it before).
   */
  retireFor(wishlistIds: Iterable<string>): { archived: number; deleted: number } {
    const ids = JSON.stringify([...wishlistIds]);
    const archived = this.statements.archiveCompleted.run(ids).changes;
    return { archived, deleted: this.statements.deleteLive.run(ids).changes };
  }

  /** Any download, archived ones included. */
  get(id: string): Download | undefined {
    return parsed(this.statements.get.get(id));
  }

  isArchived(id: string): boolean {
    return this.statements.isArchived.get(id) === 1;
  }

  /** Live downloads (of `state`), newest first, then archived ones, most recently archived first; `total` counts both. */
  page(filter: { state?: DownloadState; offset: number; limit: number }): { items: Download[]; total: number } {
    const { state, offset, limit } = filter;
    const live = Number(state === undefined ? this.statements.liveCount.get() : this.statements.liveCountOf.get(state));
    const records = (state === undefined ? this.statements.livePage.all(limit, offset) : this.statements.livePageOf.all(state, limit, offset)) as string[];
    if (records.length < limit) {
      const archivedOffset = Math.max(0, offset - live);
      const rest = limit - records.length;
      records.push(...((state === undefined ? this.statements.archivedPage.all(rest, archivedOffset) : this.statements.archivedPageOf.all(state, rest, archivedOffset)) as string[]));
    }
    const total = Number(state === undefined ? this.statements.count.get() : this.statements.countOf.get(state));
    return { items: records.map((record) => JSON.parse(record) as Download), total };
  }

  /** Downloads by state, archived ones included (as `GET /downloads?status=` counts them). */
  counts(): Record<DownloadState, number> {
    const counts = Object.fromEntries(STATES.map((state) => [state, 0])) as Record<DownloadState, number>;
    for (const { state, n } of this.statements.counts.all() as { state: DownloadState; n: number }[]) counts[state] = n;
    return counts;
  }

  /** Downloads not archived (what the queue's room check counts). */
  liveCount(): number {
    return Number(this.statements.liveCount.get());
  }

  /** Queued, searching and downloading ones, oldest first: what a poll asks the client about. */
  active(): Download[] {
    return (this.statements.active.all() as string[]).map((record) => JSON.parse(record) as Download);
  }

  /** The newest live download of a wishlist item (of `state`): a failed one is reused when the item is wanted again. */
  latestFor(wishlistId: string, state?: DownloadState): Download | undefined {
    return parsed(state === undefined ? this.statements.latestFor.get(wishlistId) : this.statements.latestOfStateFor.get(wishlistId, state));
  }

  /**
   * The state of the active download of each of these wishlist items that has one (the newest, should there be two):
   * what the wishlist shows for an item being downloaded.
   */
  activeStateFor(wishlistIds: Iterable<string>): Map<string, ActiveState> {
    const states = new Map<string, ActiveState>();
    for (const row of this.statements.activeStates.all(JSON.stringify([...wishlistIds])) as { wishlist_id: string; state: ActiveState }[]) states.set(row.wishlist_id, row.state);
    return states;
  }

  /** The live downloads of these wishlist items, oldest first: those to cancel when the items go. */
  ofWishlistItems(wishlistIds: Iterable<string>): Download[] {
    return (this.statements.ofWishlistItems.all(JSON.stringify([...wishlistIds])) as string[]).map((record) => JSON.parse(record) as Download);
  }
}

function rowOf(download: Download): Record<string, string> {
  return { id: download.id, wishlist_id: download.wishlist_id, state: download.state, record: JSON.stringify(download) };
}

function parsed(record: unknown): Download | undefined {
  return typeof record === 'string' ? (JSON.parse(record) as Download) : undefined;
}
