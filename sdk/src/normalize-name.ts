/**
 * The one definition of "the same name" used everywhere an artist or album is matched: de-duplicating the
 * queue, matching wishlist items against a library, and matching blackhole folders.
 */

// A trailing bracket group is an edition marker when it holds one of these words, or only a year. "Version"
// alone is not one: "(Taylor's Version)" or "(Acoustic Version)" is another recording, like "(Live)".
const EDITION_WORDS =
  /\b(deluxe|edition|remaster(ed)?|expanded|anniversary|bonus|reissue|special|collector'?s?|legacy|explicit|clean|mono|stereo|super)\b/i;
const YEAR_ONLY = /^\s*\d{4}\s*$/;
const TRAILING_GROUP = /\s*[([{]([^()[\]{}]*)[)\]}]\s*$/;
// Letters that Unicode does not decompose into a base letter plus accents.
const FOLD: Record<string, string> = { æ: 'ae', Æ: 'ae', œ: 'oe', Œ: 'oe', ø: 'o', Ø: 'o', ß: 'ss', đ: 'd', Đ: 'd', ł: 'l', Ł: 'l', þ: 'th', Þ: 'th', ð: 'd', Ð: 'd', ı: 'i' };
const FOLDABLE = new RegExp(`[${Object.keys(FOLD).join('')}]`, 'g');
// A dot between single letters, as in "R.E.M." or "P.J. Harvey", so they match "REM" and "PJ Harvey".
const INITIALS_DOT = /(?<![\p{L}\p{N}])(\p{L})\.(?=\p{L}(?![\p{L}\p{N}]))/gu;
// Most names are plain ASCII, where folding changes nothing and \p{L} / \p{N} are [A-Za-z] / [0-9]: the same
// rules without Unicode property classes run several times faster, which a start-up indexing 100,000 names feels.
const ASCII_ONLY = /^[\x00-\x7f]*$/;
const PLAIN_WORDS = /^[A-Za-z0-9]+(?: [A-Za-z0-9]+)*$/;
const ASCII_INITIALS_DOT = /(?<![A-Za-z0-9])([A-Za-z])\.(?=[A-Za-z](?![A-Za-z0-9]))/g;
// Characters that look like nothing: format characters (zero-width space and joiner, the byte order mark, soft
// hyphen, direction marks) and control characters. A name with one inside is the name without it; white-space
// controls (tab, newline) separate words like a space.
const ASCII_CONTROL = /[\x00-\x1f\x7f]/;
const CONTROL_SPACE = /[\t\n\v\f\r\x85]/g;
const INVISIBLE = /[\p{Cc}\p{Cf}]/gu;
// Apostrophe look-alikes, made one before NFKD (which would turn an acute accent ´ into a space and a mark).
const APOSTROPHES = /[\u00b4\u02bb\u02bc\u2018\u2019\u201b\u2032\uff07]/g;
// Any of the above: most names hold none, and one test costs less than three replacements.
const ODD_CHARACTER = /[\p{Cc}\p{Cf}\u00b4\u02bb\u02bc\u2018\u2019\u201b\u2032\uff07]/u;
// What joins the artists of a credit: "A & B", "A, B and C", "A feat. B", "A (ft. B)", "A with B", "A + B". The
// words count only between two names (space on both sides, or a bracket before "feat."), so "And Also the Trees"
// stays one name. " x " and " vs. " are left alone: "Brand X", "Malcolm X" or "Spy vs Spy" are names too.
const CREDIT_JOINER = /\s*(?:[,&+\u3001]|(?<=\s)(?:and|with)(?=\s)|(?<=[\s([])(?:feat|ft)\.?(?=\s)|(?<=[\s([])featuring(?=\s))\s*/giu;
/** Between the artists of a credit in an {@link artistKey}; a normalised name never holds "&". */
const ARTIST_SEPARATOR = ' & ';

/**
 * Reduces an artist or album name to a comparison key: case, accents, punctuation, a leading "The", `&` vs
 * `and`, and trailing edition suffixes such as "(Deluxe Edition)" or "[Remastered 2011]" are ignored.
 *
 * @example
 * normalizeName('The Beatles') === normalizeName('beatles')                              // true
 * normalizeName('Abbey Road (Remastered 2019)') === normalizeName('Abbey Road')          // true
 * normalizeName('Sigur Rós') === normalizeName('Sigur Ros')                              // true
 */
export function normalizeName(name: string): string {
  if (PLAIN_WORDS.test(name)) return plainKey(name);
  const text = withoutEditions(foldLetters(name));
  const key = wordsOf(text).replace(/^the /, '');
  return key.length > 0 ? key : punctuationKey(text);
}

/**
 * The key of an artist credit: the set of artists it names, each normalised as {@link normalizeName} does, so
 * neither their order nor what joins them (`&`, `and`, `,`, `feat.`, `ft.`, `featuring`, `with`, `+`) matters. A
 * library lists a joint album's artists in its own order ("Kanye West & JAY-Z"), MusicBrainz in the credit's
 * ("JAY‐Z & Kanye West"). A one-artist name keys exactly as normalizeName.
 *
 * @example
 * artistKey('JAY-Z & Kanye West') === artistKey('Kanye West, JAY‐Z')                         // true
 * artistKey('Sufjan Stevens feat. Angelo De Augustine') === artistKey('Angelo De Augustine and Sufjan Stevens') // true
 * artistKey('The Beatles') === normalizeName('Beatles')                                     // true
 */
export function artistKey(artist: string): string {
  if (PLAIN_WORDS.test(artist)) {
    const lower = artist.toLowerCase();
    // Substring tests, cheaper than a regular expression; one that finds a longer word (" feather") only sends the
    // name the slow way, which gives the same key.
    const joined = lower.includes(' and ') || lower.includes(' with ') || lower.includes(' feat') || lower.includes(' ft ');
    if (!joined) return lower.startsWith('the ') ? lower.slice(4) : lower;
  }
  const text = withoutEditions(foldLetters(artist));
  const names = new Set<string>();
  for (const part of text.split(CREDIT_JOINER)) {
    const name = wordsOf(part).replace(/^the /, '');
    if (name.length > 0) names.add(name);
  }
  if (names.size === 0) return punctuationKey(text);
  return names.size === 1 ? names.values().next().value ?? '' : [...names].sort().join(ARTIST_SEPARATOR);
}

/**
 * The key that identifies an album by name: the artist credit's {@link artistKey} and the normalised album joined.
 *
 * @example
 * albumKey('The National', 'Boxer (Deluxe Edition)') === albumKey('National', 'boxer')   // true
 * albumKey('Kanye West & JAY-Z', 'Watch the Throne') === albumKey('JAY-Z & Kanye West', 'Watch The Throne') // true
 */
export function albumKey(artist: string, album: string): string {
  return `${artistKey(artist)}\u241f${normalizeName(album)}`;
}

/**
 * The words of any text (a name, a folder path, a file name) as {@link normalizeName} compares them: folded
 * letters (æ → ae, ø → o, ß → ss, ł → l, þ → th), no accents, lower case, dots between initials dropped
 * ("L.A." → "la", "m.A.A.d" → "maad"), `&` as "and", apostrophes removed, other punctuation as spaces. Unlike
 * normalizeName it keeps a leading "The" and edition suffixes, so it suits searching for a name's words inside a
 * longer text: one normalisation for the wanted words and the text searched.
 *
 * @example
 * nameWords('Sigur Rós - Ágætis byrjun (1999)') // 'sigur ros agaetis byrjun 1999'
 * nameWords('The Doors\\L.A. Woman')           // 'the doors la woman'
 */
export function nameWords(text: string): string {
  return wordsOf(foldLetters(text));
}

// Plain words of ASCII letters and digits, one space apart (most names): every rule comes down to lower case and a
// leading "the" dropped, without running a regular expression over the name five times.
function plainKey(name: string): string {
  const lower = name.toLowerCase();
  return lower.startsWith('the ') ? lower.slice(4) : lower;
}

/** `text` without trailing edition suffixes in brackets. */
function withoutEditions(folded: string): string {
  let text = folded;
  for (let match = TRAILING_GROUP.exec(text); match; match = TRAILING_GROUP.exec(text)) {
    const inner = match[1] ?? '';
    if (!EDITION_WORDS.test(inner) && !YEAR_ONLY.test(inner)) break;
    text = text.slice(0, match.index);
  }
  return text;
}

// A name made only of punctuation ("!!!") would reduce to nothing; keep it distinguishable, still without its
// edition suffix, so "!!! (Deluxe Edition)" matches "!!!".
function punctuationKey(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim();
}

// NFKD both takes accents off (dropped as marks) and makes compatibility forms plain: fullwidth "ＡＢＣ" and "＆",
// ligatures, superscripts. Invisible characters go first, so a zero-width space inside a word leaves one word.
function foldLetters(text: string): string {
  if (ASCII_ONLY.test(text)) return ASCII_CONTROL.test(text) ? text.replace(CONTROL_SPACE, ' ').replace(INVISIBLE, '') : text;
  const plain = ODD_CHARACTER.test(text) ? text.replace(CONTROL_SPACE, ' ').replace(INVISIBLE, '').replace(APOSTROPHES, "'") : text;
  return plain
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(FOLDABLE, (letter) => FOLD[letter] ?? letter);
}

function wordsOf(folded: string): string {
  if (ASCII_ONLY.test(folded)) {
    return folded
      .replace(ASCII_INITIALS_DOT, '$1')
      .toLowerCase()
      .replace(/&/g, ' and ')
      .replace(/['`]/g, '')
      .replace(/[^a-z0-9]+/g, ' ')
      .trim();
  }
  return folded
    .replace(INITIALS_DOT, '$1')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/['`]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
