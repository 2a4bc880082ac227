/** Navidrome's default `Scanner.ArtistJoiner` (`consts/consts.go`), between album artists in `artist`. */
const NAVIDROME_JOINER = ' • ';
/** The credit MusicBrainz gives a compilation, and so the artist a wishlist item for one carries. */
const VARIOUS_ARTISTS = 'Various Artists';

/**
 * The artist names an album is filed under besides `display` (the credit the server shows): each album artist
 * on its own (`listed`, the OpenSubsonic `artists`, else the names Navidrome joined into `display`), the
 * `artist` field when it differs (gonic puts one album artist there), and the artists joined the way
 * MusicBrainz writes a credit ("A & B", "A, B & C"), which is what a wishlist item for a collaboration carries.
 *
 * @example
 * creditsOf('JAY-Z • Kanye West', 'JAY-Z • Kanye West', ['JAY-Z', 'Kanye West'], false)
 * // → ['JAY-Z', 'Kanye West', 'JAY-Z & Kanye West']
 */
export function creditsOf(display: string, artist: string, listed: readonly string[], compilation: boolean): string[] {
  const sources = listed.length > 0 ? listed : [display, artist];
  const each = unique(sources.flatMap((name) => name.split(NAVIDROME_JOINER)).map((n) => n.trim()).filter((n) => n !== ''));
  const names = [...each, artist.trim()];
  if (each.length > 1) names.push(joinAsCredit(each));
  if (compilation) names.push(VARIOUS_ARTISTS);
  return unique(names).filter((n) => n !== '' && n !== display);
}

/** "A & B" for two names, "A, B & C" for more: MusicBrainz's usual join phrases. */
function joinAsCredit(names: readonly string[]): string {
  if (names.length <= 2) return names.join(' & ');
  return `${names.slice(0, -1).join(', ')} & ${names[names.length - 1] ?? ''}`;
}

function unique(names: readonly string[]): string[] {
  return [...new Set(names)];
}
