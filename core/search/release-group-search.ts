import type { Logger, MusicBrainz, ReleaseGroupHit } from '@crateflow/sdk';
import { ConcurrencyLimit } from '../concurrency/concurrency-limit.js';
import { ValidationError } from '../errors/validation-error.js';
import { UpstreamUnavailableError } from '../errors/upstream-unavailable-error.js';
import type { AlbumIdentity } from '../library/album-keys.js';
import type { LibraryTable } from '../library/library-table.js';
import { musicBrainzUnavailable } from '../metadata/musicbrainz-unavailable.js';
import { coverUrlOf, creditOf, yearOf } from '../metadata/release-group-fields.js';
import type { QueueTable } from '../queue/queue-table.js';
import type { WishlistTable } from '../wishlist/wishlist-table.js';
import { parseSearchQuery } from './parse-search-query.js';
import { rankSearchHits } from './rank-search-hits.js';
import type { ReleaseGroupResult, SearchResults } from './search.schema.js';

export interface ReleaseGroupSearchDeps {
  readonly musicbrainz: MusicBrainz;
  readonly queue: QueueTable;
  readonly wishlist: WishlistTable;
  readonly library: LibraryTable;
  readonly log: Logger;
}

/**
 * GET /search: release groups from MusicBrainz (through the shared client, so answers come from its disk cache
 * when asked again), each marked with where Crateflow already has it: in the library, pending in the queue, on
 * the wishlist, or rejected. The marks use the same matching as de-duplication (mbid, else normalised names).
 */
export class ReleaseGroupSearch {
  // MusicBrainz answers one request a second to the whole instance: searches past these wait in its pacing queue
  // for minutes while holding a connection each, so a flood of them is refused at once (503, try again) instead.
  private readonly limit = new ConcurrencyLimit({ concurrent: 2, queued: 16, refuse: () => new UpstreamUnavailableError('MusicBrainz', 2, { busy: true }) });

  constructor(private readonly deps: ReleaseGroupSearchDeps) {}

  async search(q: string, limit: number): Promise<SearchResults> {
    const musicbrainz = this.deps.musicbrainz;
    const terms = parseSearchQuery(q);
    if (!terms.title) throw new ValidationError([{ path: 'query.q', message: 'must contain more than spaces' }]);
    let hits: ReleaseGroupHit[];
    try {
      // A bare text may be an artist's name as well as a title: both are asked for, the artist's albums first.
      const query = terms.artist ? { title: terms.title, artist: terms.artist, limit } : { title: terms.title, orArtist: true, limit };
      hits = await this.limit.run(() => musicbrainz.searchReleaseGroups(query));
    } catch (err: unknown) {
      const unavailable = musicBrainzUnavailable(err);
      if (!unavailable) throw err;
      this.deps.log.warn({ err }, 'MusicBrainz could not be reached for a search');
      throw unavailable;
    }
    const ordered = terms.artist ? hits : rankSearchHits(hits, terms.title);
    return { items: ordered.map((hit) => this.result(hit)), ...(terms.artist ? { artist: terms.artist } : {}), title: terms.title };
  }

  private result(hit: ReleaseGroupHit): ReleaseGroupResult {
    const artist = creditOf(hit);
    const year = yearOf(hit);
    const album: AlbumIdentity = { artist, album: hit.title, mbid: hit.mbid };
    const { queue, wishlist, library } = this.deps;
    return {
      mbid: hit.mbid,
      artist,
      title: hit.title,
      ...(year === undefined ? {} : { year }),
      primary_type: hit.primaryType,
      secondary_types: [...hit.secondaryTypes],
      score: hit.score,
      cover_url: coverUrlOf(hit.mbid),
      in_library: library.owns(album),
      queued: queue.findPending(album) !== undefined,
      wishlisted: wishlist.findWanted(album) !== undefined,
      // The latest decision on the album: restored and approved again, it is no longer "rejected".
      rejected: queue.findDecided(album)?.status === 'rejected',
    };
  }
}
