import { normalizeName, type ReleaseGroupHit } from '@crateflow/sdk';
import { creditOf } from '../metadata/release-group-fields.js';

/**
 * Orders the hits of a search box's bare text (`q` without "Artist - Album") the way a person typing a name means
 * it: first the studio albums of an artist of exactly that name ("Low" → Low's albums), then release groups of
 * exactly that title (David Bowie's "Low"), then the artist's other release groups (singles, EPs, live), then the
 * rest. MusicBrainz scores all of these alike (several hits share 100, shared/reference/musicbrainz-api.md §6.3),
 * so within each tier its order is kept.
 */
export function rankSearchHits(hits: readonly ReleaseGroupHit[], typed: string): ReleaseGroupHit[] {
  const wanted = normalizeName(typed);
  const tier = (hit: ReleaseGroupHit): number => {
    const byArtist = hit.artists.some((artist) => normalizeName(artist.name) === wanted) || normalizeName(creditOf(hit)) === wanted;
    const studioAlbum = hit.primaryType?.toLowerCase() === 'album' && hit.secondaryTypes.length === 0;
    if (byArtist && studioAlbum) return 0;
    if (normalizeName(hit.title) === wanted) return 1;
    return byArtist ? 2 : 3;
  };
  return hits.map((hit, index) => ({ hit, index, tier: tier(hit) })).sort((a, b) => a.tier - b.tier || a.index - b.index).map(({ hit }) => hit);
}
