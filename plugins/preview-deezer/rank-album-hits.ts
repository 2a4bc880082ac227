import { isRecord, normalizeName, numberField, stringField, type JsonRecord } from '@crateflow/sdk';

/** A Deezer album from `/search/album`, as far as matching needs it. */
export interface DeezerAlbumHit {
  readonly id: number;
  readonly title: string;
  readonly artist: string;
  readonly recordType: string | undefined;
}

/**
 * The search hit that is this album, or undefined. Deezer ranks by popularity, so a compilation, a tribute by
 * someone else or a "(Remixes)" edition can come first (shared/reference/deezer-api.md §3.1): only hits whose
 * artist and title are the same names (normalised: case, accents, edition suffixes) count, and an album or EP
 * goes before a compilation of the same name. A collaboration matches on its first credited artist too, as Deezer
 * often credits only the lead.
 */
export function pickAlbum(hits: readonly unknown[], artist: string, album: string): DeezerAlbumHit | undefined {
  const wantedTitle = normalizeName(album);
  const wantedArtists = new Set([normalizeName(artist), normalizeName(leadArtistOf(artist))]);
  const matching = hits.filter(isRecord).flatMap((hit) => readHit(hit) ?? []).filter(
    (hit) => normalizeName(hit.title) === wantedTitle && wantedArtists.has(normalizeName(hit.artist)),
  );
  // Stable: within each group Deezer's own order stands.
  return matching.find((hit) => hit.recordType !== 'compile') ?? matching[0];
}

function readHit(hit: JsonRecord): DeezerAlbumHit | undefined {
  const id = numberField(hit, 'id');
  const title = stringField(hit, 'title');
  const artist = isRecord(hit['artist']) ? stringField(hit['artist'], 'name') : undefined;
  if (id === undefined || title === undefined || artist === undefined) return undefined;
  return { id, title, artist, recordType: stringField(hit, 'record_type') };
}

/** "A & B", "A feat. B", "A, B and C" → "A". */
function leadArtistOf(credit: string): string {
  return credit.split(/\s+(?:&|and|feat\.?|ft\.?|featuring|with|x)\s+|,\s+/i)[0] ?? credit;
}
