import type { Logger, MusicBrainz, ReleaseGroup, Tracklist } from '@crateflow/sdk';
import { ConcurrencyLimit } from '../concurrency/concurrency-limit.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { UpstreamUnavailableError } from '../errors/upstream-unavailable-error.js';
import { musicBrainzUnavailable } from '../metadata/musicbrainz-unavailable.js';
import { creditOf, yearOf } from '../metadata/release-group-fields.js';
import type { ReleaseGroupDetail } from './release-group-detail.schema.js';
import { researchLinks } from './research-links.js';

// A panel costs up to three paced requests; two at once and eight waiting keep the longest wait near half a minute
// on musicbrainz.org, and a search arriving meanwhile waits behind two panels' requests at most.
const CONCURRENT_PANELS = 2;
const WAITING_PANELS = 8;
const BUSY_RETRY_AFTER_S = 3;

/**
 * GET /release-groups/{mbid}: what the album panel shows. Three MusicBrainz requests the first time (the group,
 * its releases, the chosen release's tracks), paced by the shared client; later ones come from its disk cache.
 */
export class ReleaseGroupDetails {
  // Each panel not yet cached waits in MusicBrainz's pacing queue (a request a second for the whole instance), the
  // queue search waits in too: 200 panels at once held search for minutes (issue #27). So, like search and with a
  // bound of its own, a few run, a few wait, and the rest are refused at once (503, try again in a moment).
  private readonly limit = new ConcurrencyLimit({
    concurrent: CONCURRENT_PANELS, queued: WAITING_PANELS, refuse: () => new UpstreamUnavailableError('MusicBrainz', BUSY_RETRY_AFTER_S, { busy: true }),
  });

  constructor(
    private readonly musicbrainz: MusicBrainz,
    private readonly log: Logger,
  ) {}

  /** Panels being looked up and waiting now (for tests and reports). */
  get load(): { running: number; waiting: number } {
    return this.limit.load;
  }

  async detail(mbid: string): Promise<ReleaseGroupDetail> {
    const musicbrainz = this.musicbrainz;
    const wanted = mbid.toLowerCase();
    let group: ReleaseGroup | undefined;
    let tracklist: Tracklist | undefined;
    try {
      ({ group, tracklist } = await this.limit.run(async () => {
        const found = await musicbrainz.releaseGroup(wanted);
        // A merged mbid answers with the group that absorbed it: its releases are the ones to list.
        return { group: found, tracklist: found && (await musicbrainz.releaseGroupTracklist?.(found.mbid)) };
      }));
    } catch (err: unknown) {
      const unavailable = musicBrainzUnavailable(err);
      if (!unavailable) throw err;
      this.log.warn({ err, mbid: wanted }, 'MusicBrainz could not be reached for an album panel');
      throw unavailable;
    }
    if (!group) throw new NotFoundError('release group', wanted);
    const artist = creditOf(group);
    const year = yearOf(group);
    return {
      mbid: group.mbid,
      title: group.title,
      artist,
      ...(year === undefined ? {} : { year }),
      primary_type: group.primaryType,
      secondary_types: [...group.secondaryTypes],
      ...(tracklist?.releaseMbid ? { release_mbid: tracklist.releaseMbid } : {}),
      tracks: (tracklist?.tracks ?? []).map((track) => ({
        position: track.position,
        title: track.title,
        ...(track.lengthMs === undefined ? {} : { length_s: Math.round(track.lengthMs / 1000) }),
      })),
      links: researchLinks(group.mbid, artist, group.title),
    };
  }
}
