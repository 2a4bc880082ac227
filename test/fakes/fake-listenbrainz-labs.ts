import type { IncomingMessage, ServerResponse } from 'node:http';
import { listenOnLoopback, type LoopbackServer } from './listen-on-loopback.js';
import { fakeMbid, type MusicBrainzCatalogue } from './musicbrainz-catalogue.js';
import { recordRequest, type RecordedRequest } from './recorded-request.js';
import { replyJson, replyText } from './reply.js';

/** §4: the algorithms the server code uses; anything else fails the enum check. */
export const SIMILAR_ARTIST_ALGORITHMS = [
  'session_based_days_7500_session_300_contribution_3_threshold_10_limit_100_filter_True_skip_30',
  'session_based_days_7500_session_300_contribution_5_threshold_10_limit_100_filter_True_skip_30',
];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The Labs similar-artists endpoint (shared/reference/listenbrainz-api.md §4): a flat array, integer scores,
 * no order, `null` names for artists missing from the MusicBrainz mirror, and Werkzeug HTML for bad input.
 */
/** Similar artists per seed MBID, as a test wants them ranked; a seed missing from the table has none (§4: unknown → `[]`). */
export type SimilarityTable = ReadonlyMap<string, readonly { readonly mbid: string; readonly score: number }[]>;

/**
 * `failing`: seed MBIDs whose query raises inside the server (a database outage): datasethoster's GET handler
 * answers 500 with the JSON body `{}` (datasethoster/main.py, `json_query_handler_get`).
 */
export function startFakeListenBrainzLabs(catalogue: MusicBrainzCatalogue, received: RecordedRequest[], table?: SimilarityTable, failing: ReadonlySet<string> = new Set()): Promise<LoopbackServer> {
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const request = await recordRequest(req);
    received.push(request);
    const serverError = () => replyText(res, 500, '<!doctype html>\n<html lang=en>\n<title>500 Internal Server Error</title>\n<h1>Internal Server Error</h1>\n<p>The server encountered an internal error and was unable to complete your request. Either the server is overloaded or there is an error in the application.</p>\n', 'text/html; charset=utf-8');
    const bad = (text: string) => replyText(res, 400, `<!doctype html>\n<html lang=en>\n<title>400 Bad Request</title>\n<h1>Bad Request</h1>\n<p>${text}</p>\n`, 'text/html; charset=utf-8');
    if (request.path !== '/similar-artists/json') return replyText(res, 404, 'Not Found');
    let inputs: string[];
    let algorithm: string | null;
    let count = 100;
    if (request.method === 'POST') {
      let body: unknown;
      try {
        body = JSON.parse(request.text);
      } catch (err: unknown) {
        // A body that is not JSON is the client's mistake; Werkzeug answers its HTML 400.
        return bad(`the body is not JSON: ${err instanceof Error ? err.message : String(err)}`);
      }
      // Only the first element of the array is used.
      const first: unknown = Array.isArray(body) ? body[0] : undefined;
      if (typeof first !== 'object' || first === null || !('artist_mbids' in first) || !Array.isArray(first.artist_mbids)) return bad('artist_mbids is required');
      inputs = first.artist_mbids.filter((id): id is string => typeof id === 'string');
      algorithm = 'algorithm' in first && typeof first.algorithm === 'string' ? first.algorithm : null;
      // A count of 0 or less means the default (datasethoster main.py: `count if count > 0 else 100`).
      const asked = Number(request.query.get('count') ?? 100);
      count = asked > 0 ? asked : 100;
    } else {
      // datasethoster main.py reads both with int(…, default -1): a non-integer raises outside any handler
      // (Flask's HTML 500), zero or more is refused, and a negative one passes as if absent.
      const paging = ['offset', 'count'].map((name) => request.query.get(name) ?? '-1').map((text) => (/^\s*[-+]?\d+(?:_\d+)*\s*$/.test(text) ? Number(text.replaceAll('_', '')) : Number.NaN));
      if (paging.some(Number.isNaN)) return serverError();
      if (paging.some((value) => value >= 0)) return bad('offset and count arguments are only supported for the POST method');
      inputs = request.query.getAll('artist_mbids');
      algorithm = request.query.get('algorithm');
    }
    if (inputs.length === 0 || !inputs.every((id) => UUID.test(id))) return bad('artist_mbids must be a list of MBIDs');
    if (!algorithm || !SIMILAR_ARTIST_ALGORITHMS.includes(algorithm)) return bad(`algorithm must be one of ${SIMILAR_ARTIST_ALGORITHMS.join(', ')}`);
    if (request.method !== 'POST' && inputs.some((input) => failing.has(input.toLowerCase()))) return replyJson(res, 500, {});
    const rows = inputs.flatMap((input) => {
      const seed = catalogue.artist(input.toLowerCase());
      if (!seed) return [];
      if (table) {
        return (table.get(seed.id) ?? []).map(({ mbid, score }) => {
          const artist = catalogue.artist(mbid);
          return { artist_mbid: mbid, name: artist?.name ?? null, comment: artist ? artist.disambiguation : null, type: artist?.type ?? null, gender: null, score, reference_mbid: seed.id };
        }).slice(0, count);
      }
      const others = catalogue.artists.filter((artist) => artist.id !== seed.id && artist.disambiguation === '');
      const known = others.map((artist, index) => ({ artist_mbid: artist.id, name: artist.name, comment: artist.disambiguation, type: artist.type,
        gender: null, score: 9000 - index * 1337, reference_mbid: seed.id }));
      const unknown = { artist_mbid: fakeMbid(0, `unmirrored ${seed.id}`), name: null, comment: null, type: null, gender: null, score: 2500, reference_mbid: seed.id };
      return [...known, unknown].slice(0, count);
    });
    // No ORDER BY in the final SQL: the rows come back in no particular order; this fake puts the weakest first.
    replyJson(res, 200, rows.reverse());
  };
  return listenOnLoopback(handle);
}
