/**
 * Just enough of the Lucene query syntax for the fakes' searches (shared/reference/musicbrainz-api.md §6.3):
 * `field:"phrase"`, `field:word`, bare words and phrases. parseLuceneQuery() joins every term by `AND` (an `OR` is
 * read as `AND`, which only ever narrows a fake's answer); parseLuceneAlternatives() honours `OR` and parentheses.
 * Backslash escapes are honoured, so a client that forgets to escape a `"` in a name gets a different, wrong query
 * — as on the real server.
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

type Token = { readonly kind: 'open' | 'close' | 'and' | 'or' } | { readonly kind: 'term'; readonly term: QueryTerm };

/**
 * The query as alternatives, each a list of terms that must all match: `a OR b` is two alternatives, `a AND b` (or
 * `a b`) one, and `(a OR b) AND c` is `a c` or `b c`. MusicBrainz's search takes the full Lucene syntax, boolean
 * operators, parentheses and `^` boosts included (musicbrainz.org/doc/MusicBrainz_API/Search: "the full Lucene
 * Search syntax"); a boost (`artist:"low"^2`) is read and ignored here, as the fake's scores are coarse anyway.
 */
export function parseLuceneAlternatives(query: string): QueryTerm[][] {
  const tokens = tokenize(query);
  let at = 0;
  const peek = () => tokens[at];
  const parseOr = (): QueryTerm[][] => {
    let result = parseAnd();
    while (peek()?.kind === 'or') {
      at++;
      result = [...result, ...parseAnd()];
    }
    return result;
  };
  const parseAnd = (): QueryTerm[][] => {
    let result = parseUnary();
    for (let next = peek(); next && next.kind !== 'or' && next.kind !== 'close'; next = peek()) {
      if (next.kind === 'and') {
        at++;
        continue;
      }
      const right = parseUnary();
      result = result.flatMap((left) => right.map((other) => [...left, ...other]));
    }
    return result;
  };
  const parseUnary = (): QueryTerm[][] => {
    const token = tokens[at++];
    if (token?.kind === 'term') return [[token.term]];
    if (token?.kind === 'open') {
      const inner = parseOr();
      if (peek()?.kind === 'close') at++;
      return inner;
    }
    return [[]];
  };
  return parseOr().filter((terms) => terms.length > 0);
}

function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < query.length) {
    const char = query[at] ?? '';
    if (/\s/.test(char)) {
      at++;
      continue;
    }
    if (char === '(' || char === ')') {
      tokens.push({ kind: char === '(' ? 'open' : 'close' });
      at++;
      continue;
    }
    const start = at;
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
      while (at < query.length && !/[\s()^]/.test(query[at] ?? '')) {
        if (query[at] === '\\' && at + 1 < query.length) at++;
        text += query[at];
        at++;
      }
    }
    const boost = /^\^[0-9.]+/.exec(query.slice(at));
    if (boost) at += boost[0].length;
    if (at === start) at++; // a stray `^`: skipped, like any character that makes no term
    if (!field && !phrase && (text === 'AND' || text === 'OR')) tokens.push({ kind: text === 'AND' ? 'and' : 'or' });
    else if (text) tokens.push({ kind: 'term', term: { field: field?.[1]?.toLowerCase(), text: text.toLowerCase(), phrase } });
  }
  return tokens;
}
