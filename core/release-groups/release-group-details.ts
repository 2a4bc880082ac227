import { isRetryLaterError, type Logger, type MusicBrainz, type ReleaseGroup, type Tracklist } from '@crateflow/sdk';
import { MetadataUnavailableError } from '../errors/metadata-unavailable-error.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { UpstreamUnavailableError } from '../errors/upstream-unavailable-error.js';
import { creditOf, yearOf } from '../metadata/release-group-fields.js';
import type { ReleaseGroupDetail } from './release-group-detail.schema.js';
import { researchLinks } from './research-links.js';

/**
 * GET /release-groups/{mbid}: what the album panel shows. Three MusicBrainz requests the first time (the group,
 * its releases, the chosen release's tracks), paced by the shared client; later ones come from its disk cache.
 */
export class ReleaseGroupDetails {
  constructor(
    /** Undefined without `metadata.contact`: then every lookup answers 503 naming it. */
    private readonly musicbrainz: MusicBrainz | undefined,
    private readonly log: Logger,
  ) {}

  async detail(mbid: string): Promise<ReleaseGroupDetail> {
    const musicbrainz = this.musicbrainz;
    if (!musicbrainz) throw new MetadataUnavailableError();
    const wanted = mbid.toLowerCase();
    let group: ReleaseGroup | undefined;
    let tracklist: Tracklist | undefined;
    try {
      group = await musicbrainz.releaseGroup(wanted);
      // A merged mbid answers with the group that absorbed it: its releases are the ones to list.
      if (group) tracklist = await musicbrainz.releaseGroupTracklist?.(group.mbid);
    } catch (err: unknown) {
      if (!isRetryLaterError(err)) throw err;
      this.log.warn({ err, mbid: wanted }, 'MusicBrainz could not be reached for an album panel');
      throw new UpstreamUnavailableError('MusicBrainz', 30, { cause: err });
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
