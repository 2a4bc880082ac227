import { Type, type Static } from 'typebox';
import { printableText } from '../schema/printable-text.js';
import { Candidate } from './queue-item.schema.js';

/**
 * What a caller sends to POST /queue and POST /wishlist: a Candidate whose `artist` may be left out when `mbid`
 * (a release group) is given; the server then fills artist, album, year, type and cover from MusicBrainz. Built
 * from Candidate's own fields, so a field added there is accepted here too.
 */
export const ProposedCandidate = Type.Object(
  {
    ...Candidate.properties,
    artist: Type.Optional(printableText('artist name; required unless `mbid` is given (then filled from MusicBrainz)')),
  },
  { additionalProperties: false, $id: 'ProposedCandidate' },
);
export type ProposedCandidate = Static<typeof ProposedCandidate>;
