import { parseLuceneAlternatives, parseLuceneQuery, type QueryTerm } from './lucene-query.js';
import type { MbArtist, MbReleaseGroup, MusicBrainzCatalogue } from './musicbrainz-catalogue.js';
import { artistHitJson, releaseGroupHitJson, releaseGroupJson } from './musicbrainz-json.js';

/** Browse and search for the MusicBrainz fake, per shared/reference/musicbrainz-api.md §4, §6.2, §6.3, §6.5. */
export interface Answer {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

const HELP = 'For usage, please see: https://musicbrainz.org/development/mmd';
const MBID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PRIMARY = ['album', 'single', 'ep', 'broadcast', 'other'];
const SECONDARY = ['compilation', 'soundtrack', 'spokenword', 'interview', 'audiobook', 'audio drama', 'live', 'remix', 'dj-mix',
  'mixtape/street', 'demo', 'field recording'];
/** The database's page order (`_find_by_artist_slow`): primary type, secondary types, first date, name. */
const PRIMARY_ORDER = ['Album', 'Single', 'EP'];

const fail = (status: number, error: string): Answer => ({ status, body: { error, help: HELP } });

/**
 * §4 gives the browse clamp (0 → 25, above 100 → 100) and the search range. A browse refuses a `limit`/`offset`
 * that is not digits (musicbrainz-server lib/MusicBrainz/Server/Controller/WS/2.pm, `_limit_and_offset`); a search
 * takes only a positive integer and silently uses 25 and 0 for anything else (lib/MusicBrainz/Server/Data/
 * WebService.pm, `xml_search`, `is_positive_integer`).
 */
function paging(params: URLSearchParams, search: boolean): { limit: number; offset: number } | Answer {
  const limitText = params.get('limit') ?? '';
  const offsetText = params.get('offset') ?? '';
  const digits = (text: string) => /^\d+$/.test(text);
  if (search) {
    const asked = digits(limitText) ? Number(limitText) : 25;
    return { limit: asked >= 1 && asked <= 100 ? asked : 25, offset: digits(offsetText) ? Number(offsetText) : 0 };
  }
  if ((limitText && !digits(limitText)) || (offsetText && !digits(offsetText))) {
    return fail(400, "The 'limit' and 'offset' parameters must be positive integers");
  }
  const asked = limitText ? Number(limitText) : 25;
  return { limit: asked === 0 ? 25 : Math.min(asked, 100), offset: offsetText ? Number(offsetText) : 0 };
}

/** §6.2: primary types OR-ed, a secondary type AND-ed, secondaries not excluded by a primary; page sorted by MBID. */
export function answerBrowse(catalogue: MusicBrainzCatalogue, params: URLSearchParams, inc: ReadonlySet<string>): Answer {
  const artistId = params.get('artist') ?? '';
  if (!MBID.test(artistId)) return fail(400, 'Invalid mbid.');
  const artist = catalogue.artist(artistId.toLowerCase());
  if (!artist) return fail(404, 'Not Found');
  const types = (params.get('type') ?? '').split('|').filter(Boolean);
  for (const type of types) {
    if (!PRIMARY.includes(type) && !SECONDARY.includes(type)) return fail(400, `${type} is not a recognized release-group type.`);
  }
  const page = paging(params, false);
  if ('status' in page) return page;
  const primaries = types.filter((type) => PRIMARY.includes(type));
  const secondaries = types.filter((type) => SECONDARY.includes(type));
  const matching = catalogue.releaseGroupsOf(artist.id).filter((group) =>
    (primaries.length === 0 || primaries.includes((group.primaryType ?? 'other').toLowerCase())) &&
    secondaries.every((type) => group.secondaryTypes.some((have) => have.toLowerCase() === type)));
  const ordered = [...matching].sort(databaseOrder);
  const items = ordered.slice(page.offset, page.offset + page.limit).sort((a, b) => a.id.localeCompare(b.id));
  return {
    status: 200,
    body: { 'release-group-count': matching.length, 'release-group-offset': page.offset,
      'release-groups': items.map((group) => releaseGroupJson(group, inc.has('artist-credits'))) },
  };
}

export function answerSearch(catalogue: MusicBrainzCatalogue, entity: string, params: URLSearchParams, now: number): Answer {
  // An empty `query=` counts as no query at all, so no query type matches (lib/MusicBrainz/Server/Validator.pm,
  // `validate_required`); only one of blanks reaches the search and its "blank search query" text (Data/WebService.pm).
  const asked = params.get('query') ?? '';
  if (asked === '') return fail(400, `The given parameters do not match any available query type for the ${entity} resource.`);
  const query = asked.trim();
  if (!query) return fail(400, "You submitted a blank search query. You must include a non-blank 'query=' parameter with your search.");
  const page = paging(params, true);
  if ('status' in page) return page;
  const terms = parseLuceneQuery(query);
  const envelope = (count: number) => ({ created: new Date(now).toISOString(), count, offset: page.offset });
  if (entity === 'release-group') {
    // Each alternative of an `OR` (`releasegroup:"low" OR artist:"low"`) may match; the best one scores the hit.
    const alternatives = parseLuceneAlternatives(query);
    const hits = ranked(catalogue.releaseGroups, (group) => bestScore(alternatives.map((conjunction) => scoreReleaseGroup(group, conjunction))));
    return { status: 200, body: { ...envelope(hits.length), 'release-groups': hits.slice(page.offset, page.offset + page.limit).map(([group, score]) => releaseGroupHitJson(group, score)) } };
  }
  if (entity === 'artist') {
    // Ties keep the catalogue order reversed, so the namesake outranks the artist it shadows (§6.5).
    const hits = ranked([...catalogue.artists].reverse(), (artist) => scoreArtist(artist, terms));
    return { status: 200, body: { ...envelope(hits.length), artists: hits.slice(page.offset, page.offset + page.limit).map(([artist, score]) => artistHitJson(artist, score)) } };
  }
  return fail(400, `The given parameters do not match any available query type for the ${entity} resource.`);
}

/**
 * Matching items, best first, scored relative to the best: the search writer turns each raw Lucene score into
 * `(int) (score / maxScore * 100)` (metabrainz/mb-solr, MBXMLWriter.java `adjustScore`, which the JSON writer
 * inherits), so the best hit of any query scores 100 whether it matches exactly or not, and only the ratio to the
 * best tells a near miss. The raw scores here (100 exact, less otherwise) stand in for Lucene's.
 */
function ranked<T>(items: readonly T[], score: (item: T) => number | undefined): [T, number][] {
  const hits = items.flatMap((item): [T, number][] => {
    const value = score(item);
    return value === undefined ? [] : [[item, value]];
  }).sort((a, b) => b[1] - a[1]);
  const best = hits[0]?.[1] ?? 1;
  return hits.map(([item, raw]) => [item, Math.trunc((raw / best) * 100)]);
}

/** Every term must match; the raw score of an exact title match is 100, of others less (made relative in ranked()). */
function scoreReleaseGroup(group: MbReleaseGroup, terms: readonly QueryTerm[]): number | undefined {
  const title = group.title.toLowerCase();
  const names = group.credit.map((part) => part.artist.name.toLowerCase());
  let exact = true;
  for (const term of terms) {
    const field = term.field ?? 'any';
    const ok = field === 'releasegroup' || field === 'release' ? title.includes(term.text)
      : field === 'artist' || field === 'artistname' ? names.some((name) => name.includes(term.text))
        : field === 'arid' ? group.credit.some((part) => part.artist.id === term.text)
          : field === 'rgid' ? group.id === term.text
            : field === 'primarytype' ? (group.primaryType ?? '').toLowerCase() === term.text
              : field === 'secondarytype' ? group.secondaryTypes.some((type) => type.toLowerCase() === term.text)
                : field === 'firstreleasedate' ? group.firstReleaseDate.startsWith(term.text)
                  : title.includes(term.text) || names.some((name) => name.includes(term.text));
    if (!ok) return undefined;
    if ((field === 'releasegroup' || field === 'any') && title !== term.text) exact = false;
  }
  return exact ? 100 : 86;
}

function bestScore(scores: readonly (number | undefined)[]): number | undefined {
  const matched = scores.filter((score): score is number => score !== undefined);
  return matched.length === 0 ? undefined : Math.max(...matched);
}

function scoreArtist(artist: MbArtist, terms: readonly QueryTerm[]): number | undefined {
  const name = artist.name.toLowerCase();
  let exact = true;
  for (const term of terms) {
    if (term.field !== undefined && term.field !== 'artist' && term.field !== 'name') return undefined;
    const ok = name.includes(term.text) || (term.field === undefined && artist.sortName.toLowerCase().includes(term.text));
    if (!ok) return undefined;
    if (name !== term.text) exact = false;
  }
  return exact ? 100 : 71;
}

function databaseOrder(a: MbReleaseGroup, b: MbReleaseGroup): number {
  const rank = (group: MbReleaseGroup) => (group.primaryType ? PRIMARY_ORDER.indexOf(group.primaryType) : PRIMARY_ORDER.length);
  return rank(a) - rank(b) || a.secondaryTypes.join().localeCompare(b.secondaryTypes.join()) ||
    (a.firstReleaseDate || '9999').localeCompare(b.firstReleaseDate || '9999') || a.title.localeCompare(b.title);
}
