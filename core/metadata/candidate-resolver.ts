import type { Logger, MusicBrainz, ReleaseGroup } from '@crateflow/sdk';
import { ValidationError, type FieldProblem } from '../errors/validation-error.js';
import { musicBrainzUnavailable } from './musicbrainz-unavailable.js';
import type { Candidate } from '../queue/queue-item.schema.js';
import type { ProposedCandidate } from '../queue/proposed-candidate.schema.js';
import { coverUrlOf, creditOf, yearOf } from './release-group-fields.js';

/**
 * How many candidates of one request may name only an mbid. Each is a MusicBrainz lookup on the request path, at
 * one a second for an uncached one, so a request answers within about this many seconds; more are refused (400)
 * rather than queued, so a client learns at once to send artist and album (which are enriched in the background).
 */
export const MAX_MBID_ONLY = 10;

/**
 * Turns proposed candidates into storable ones: a candidate without `artist` but with `mbid` is looked up as a
 * MusicBrainz release group, and artist, album, year, type and cover are filled from it; fields the caller sent
 * are kept as sent. Nothing is stored when any candidate fails, so the whole request can be sent again.
 */
export class CandidateResolver {
  constructor(private readonly musicbrainz: MusicBrainz, private readonly log: Logger) {}

  /** `pathOf(index)` names a candidate in problems: `body` for a single one, `body[3]` in a batch. */
  async resolve(proposed: readonly ProposedCandidate[], pathOf: (index: number) => string): Promise<Candidate[]> {
    const problems: FieldProblem[] = [];
    const lookups: number[] = [];
    proposed.forEach((candidate, index) => {
      if (candidate.artist !== undefined) return;
      if (candidate.mbid === undefined) problems.push({ path: `${pathOf(index)}.artist`, message: 'is required unless mbid is given' });
      else lookups.push(index);
    });
    if (problems.length > 0) throw new ValidationError(problems);
    if (lookups.length > MAX_MBID_ONLY) {
      throw new ValidationError([{
        path: pathOf(lookups[MAX_MBID_ONLY] ?? 0),
        message: `at most ${MAX_MBID_ONLY} candidates of one request may give only an mbid (${lookups.length} did): send artist and album with the others`,
      }]);
    }
    if (lookups.length === 0) return proposed.map((candidate) => withArtist(candidate, candidate.artist ?? ''));
    const musicbrainz = this.musicbrainz;

    const found = new Map<number, ReleaseGroup>();
    for (const index of lookups) {
      const mbid = proposed[index]?.mbid ?? '';
      const group = await musicbrainz.releaseGroup(mbid).catch((err: unknown) => {
        const unavailable = musicBrainzUnavailable(err);
        if (!unavailable) throw err;
        this.log.warn({ err, mbid }, 'MusicBrainz could not be reached to look up a proposed mbid');
        throw unavailable;
      });
      if (group) found.set(index, group);
      else problems.push({ path: `${pathOf(index)}.mbid`, message: 'MusicBrainz knows no release group with this id: give a release group id, or artist and album' });
    }
    if (problems.length > 0) throw new ValidationError(problems);
    return proposed.map((candidate, index) => {
      const group = found.get(index);
      return group ? filledFrom(candidate, group) : withArtist(candidate, candidate.artist ?? '');
    });
  }
}

function withArtist(candidate: ProposedCandidate, artist: string): Candidate {
  return { ...candidate, artist };
}

/** The release group's fields under the ones the caller sent: a field given is never replaced. */
function filledFrom(candidate: ProposedCandidate, group: ReleaseGroup): Candidate {
  const year = yearOf(group);
  return {
    album: group.title,
    type: 'album',
    ...(year === undefined ? {} : { year }),
    cover_url: coverUrlOf(group.mbid),
    ...candidate,
    artist: candidate.artist ?? creditOf(group),
  };
}
