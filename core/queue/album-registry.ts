import { mbidsOf, nameKeyOf, type AlbumIdentity } from '../library/album-keys.js';
import type { Store } from '../storage/store.js';

/** What an album matched: a queue item (pending or decided) or a wishlist item, with its status. */
export interface KnownMatch {
  in: 'queue' | 'wishlist';
  id: string;
  status: string;
}

/**
 * "Is this album already known?", the one place it is answered: one indexed query over the wishlist and the queue.
 * The wishlist answers first, then a pending queue item, then the latest decision; within each, a match by
 * MusicBrainz id before a match by name (the credit as a set of artists and the title), and the newest first.
 * The library is asked apart (LibraryTable.owns): it is what the person has, not what was proposed or wanted.
 */
export class AlbumRegistry {
  private readonly known;

  constructor(store: Store) {
    // @mbid, @group: the album's mbid and release-group mbid (lower-case, or NULL); @name its name key (or NULL).
    this.known = store.db.prepare(`
      SELECT place AS "in", id, status FROM (
        SELECT 0 AS rank, 'wishlist' AS place, id, status, mbid IN (@mbid, @group) AS by_mbid, seq AS recency
          FROM wishlist_items WHERE mbid IN (@mbid, @group) OR name_key = @name
        UNION ALL
        SELECT CASE status WHEN 'pending' THEN 1 ELSE 2 END, 'queue', id, status, mbid IN (@mbid, @group), coalesce(decided_seq, seq)
          FROM queue_items WHERE mbid IN (@mbid, @group) OR name_key = @name
      ) ORDER BY rank, by_mbid DESC, recency DESC LIMIT 1`);
  }

  find(album: AlbumIdentity): KnownMatch | undefined {
    const [mbid = null, releaseGroup = null] = mbidsOf(album);
    const name = nameKeyOf(album) ?? null;
    if (mbid === null && name === null) return undefined;
    return this.known.get({ mbid, group: releaseGroup ?? mbid, name }) as KnownMatch | undefined;
  }
}
