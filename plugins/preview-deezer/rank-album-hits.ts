import { isRecord, normalizeName, numberField, stringField, type JsonRecord } from '@crateflow/sdk';
import { creditArtists, sameArtists } from './credit-artists.js';
import { editionDistance, editionLabels } from './edition-distance.js';

/** A Deezer album from `/search/album`, as far as matching needs it. */
export interface DeezerAlbumHit {
  readonly id: number;
  readonly title: string;
  readonly artist: string;
  readonly recordType: string | undefined;
  readonly explicit: boolean | undefined;
  /**
   * Filed under one artist of a multi-artist credit (Deezer files a collaboration under its lead only): it is this
   * album only if `/album/{id}` lists the other artists among its contributors (search hits carry none).
   */
  readonly partOfCredit: boolean;
}

/**
 * The search hits that can be this album, best first; empty when none can. Deezer ranks by popularity, so a
 * same-named album by someone else, a compilation, a deluxe or a clean edition can come first
 * (shared/reference/deezer-api.md §3.1): only hits whose title is the same name (normalised) and whose artist is
 * the credit, or one artist of a multi-artist credit, count. Then, in order: the whole credit before a part of it,
 * an album or EP before a compilation, the edition named by the wanted title (the standard one when it names none,
 * see editionDistance), the explicit edition before the clean one unless the title asks for it, and Deezer's order.
 */
export function rankAlbumHits(hits: readonly unknown[], artist: string, album: string): DeezerAlbumHit[] {
  const wantedTitle = normalizeName(album);
  const members = creditArtists(artist);
  const wantedLabels = editionLabels(album);
  const wantsClean = wantedLabels.has('clean') || wantedLabels.has('edited');
  const ranked = hits
    .filter(isRecord)
    .flatMap((hit) => readHit(hit, artist, members) ?? [])
    .filter((hit) => normalizeName(hit.title) === wantedTitle)
    .map((hit, order) => ({ hit, order, edition: editionDistance(album, hit.title) }));
  const explicitCost = (hit: DeezerAlbumHit) => (hit.explicit === undefined ? 0.5 : hit.explicit === wantsClean ? 1 : 0);
  ranked.sort(
    (a, b) =>
      Number(a.hit.partOfCredit) - Number(b.hit.partOfCredit) ||
      Number(a.hit.recordType === 'compile') - Number(b.hit.recordType === 'compile') ||
      a.edition - b.edition ||
      explicitCost(a.hit) - explicitCost(b.hit) ||
      a.order - b.order,
  );
  return ranked.map(({ hit }) => hit);
}

function readHit(hit: JsonRecord, wantedArtist: string, members: readonly string[]): DeezerAlbumHit | undefined {
  const id = numberField(hit, 'id');
  const title = stringField(hit, 'title');
  const artist = isRecord(hit['artist']) ? stringField(hit['artist'], 'name') : undefined;
  if (id === undefined || title === undefined || artist === undefined) return undefined;
  const whole = sameArtists(artist, wantedArtist);
  if (!whole && !(members.length > 1 && members.includes(normalizeName(artist)))) return undefined;
  const explicit = hit['explicit_lyrics'];
  return { id, title, artist, recordType: stringField(hit, 'record_type'), explicit: typeof explicit === 'boolean' ? explicit : undefined, partOfCredit: !whole };
}
