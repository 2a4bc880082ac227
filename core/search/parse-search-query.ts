/** What a search box's text asks for: a release group title (or, alone, a title or an artist), and the artist when the text names one. */
export interface SearchTerms {
  readonly title: string;
  readonly artist?: string;
}

// "Artist - Album" as people type it (and as file names write it): a dash with a space on each side, so that
// hyphenated names ("Jay-Z", "Sigur Rós - ( )") are not split. En and em dashes count too.
const SEPARATOR = /\s+[-–—]\s+/;

/**
 * "Boards of Canada - Geogaddi" → artist and title; anything else is one text, searched as a title or an artist
 * name ("Low"). The split is at the first separator, so a title that itself contains " - " stays whole.
 */
export function parseSearchQuery(text: string): SearchTerms {
  const trimmed = text.trim();
  const match = SEPARATOR.exec(trimmed);
  if (match) {
    const artist = trimmed.slice(0, match.index).trim();
    const title = trimmed.slice(match.index + match[0].length).trim();
    if (artist && title) return { artist, title };
  }
  return { title: trimmed };
}
