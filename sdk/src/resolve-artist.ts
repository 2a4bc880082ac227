import type { SourceRun } from './kinds/source.js';
import type { MusicBrainz } from './musicbrainz.js';
import { normalizeName } from './normalize-name.js';

export interface ResolvedArtist {
  readonly mbid: string;
  readonly name: string;
}

/** Namesakes compared at most (each costs one browse, cached 7 days by the shared client). */
const MAX_NAMESAKES = 3;

/**
 * The MusicBrainz artist meant by a name (the library knows artists by name only). Only hits that score 90 or more
 * and whose name is the same once normalised count. Namesakes tie at score 100 (shared/reference/musicbrainz-api.md
 * §6.5), so when several remain, the one whose albums the user owns wins; then the one with more albums (the
 * obscure namesake usually has few), then MusicBrainz's order.
 *
 * @example
 * const artist = await resolveArtist(musicbrainz, 'Low', run);   // { mbid, name } or undefined
 */
export async function resolveArtist(musicbrainz: MusicBrainz, name: string, run: SourceRun): Promise<ResolvedArtist | undefined> {
  const wanted = normalizeName(name);
  const hits = (await musicbrainz.searchArtists(name, 5)).filter((hit) => hit.score >= 90 && normalizeName(hit.name) === wanted);
  if (hits.length <= 1) return hits[0] && { mbid: hits[0].mbid, name: hits[0].name };
  let best: { mbid: string; name: string; owned: number; albums: number } | undefined;
  for (const hit of hits.slice(0, MAX_NAMESAKES)) {
    const albums = (await musicbrainz.releaseGroupsOfArtist(hit.mbid, ['album'])) ?? [];
    const owned = albums.filter((group) => run.known({ mbid: group.mbid, artist: name, album: group.title }) === 'library').length;
    if (!best || owned > best.owned || (owned === best.owned && albums.length > best.albums)) best = { mbid: hit.mbid, name: hit.name, owned, albums: albums.length };
  }
  return best && { mbid: best.mbid, name: best.name };
}
