import { artistKey, normalizeName, type ReleaseGroupHit } from '@crateflow/sdk';
import { creditOf } from './release-group-fields.js';

/**
 * The one hit that is surely the album named: MusicBrainz scores it 100 and its title and credit equal the names
 * given once normalised (case, accents, punctuation, "The", edition suffixes; a credit as the set of its artists,
 * so "Autechre & Boards of Canada" is "Boards of Canada & Autechre"). Two such hits (a self-titled
 * debut and a self-titled later album, say) are ambiguous, and so is none: then nothing is guessed.
 */
export function confidentMatch(hits: readonly ReleaseGroupHit[], artist: string, album: string): ReleaseGroupHit | undefined {
  const wantedArtist = artistKey(artist);
  const wantedAlbum = normalizeName(album);
  if (!wantedArtist || !wantedAlbum) return undefined;
  const sure = hits.filter((hit) =>
    hit.score === 100 && normalizeName(hit.title) === wantedAlbum &&
    (artistKey(creditOf(hit)) === wantedArtist || hit.artists.some((credited) => artistKey(credited.name) === wantedArtist)));
  return sure.length === 1 ? sure[0] : undefined;
}
