/**
 * Just enough of the Lucene query syntax for the MusicBrainz fake's searches (shared/reference/musicbrainz-api.md
 * §6.3): `field:"phrase"`, `field:word`, bare words and phrases, joined by `AND` (an `OR` is read as `AND`, which
 * only ever narrows a fake's answer). Backslash escapes are honoured, so a client that forgets to escape a `"` in a
 * name gets a different, wrong query — as on the real server.
 */
export interface QueryTerm {
  /** Lower-case field name, or undefined for a bare term. */
  readonly field: string | undefined;
  /** The unescaped text, lower-cased. */
  readonly text: string;
  /** Whether it was a quoted phrase. */
  readonly phrase: boolean;
}

export function parseLuceneQuery(query: string): QueryTerm[] {
  const terms: QueryTerm[] = [];
  let at = 0;
  while (at < query.length) {
    if (/\s/.test(query[at] ?? '')) {
      at++;
      continue;
    }
    const field = /^([a-z-]+):/i.exec(query.slice(at));
    if (field?.[1]) at += field[0].length;
    let text = '';
    let phrase = false;
    if (query[at] === '"') {
      phrase = true;
      at++;
      while (at < query.length && query[at] !== '"') {
        if (query[at] === '\\' && at + 1 < query.length) at++;
        text += query[at];
        at++;
      }
      at++;
    } else {
      while (at < query.length && !/\s/.test(query[at] ?? '')) {
        if (query[at] === '\\' && at + 1 < query.length) at++;
        text += query[at];
        at++;
      }
    }
    if (!field && !phrase && (text === 'AND' || text === 'OR')) continue;
    if (text) terms.push({ field: field?.[1]?.toLowerCase(), text: text.toLowerCase(), phrase });
  }
  return terms;
}
