import { arrayField, CredentialsError, isHttpRequestError, isRecord, numberField, RetryLaterError, stringField, type HttpClient, type JsonRecord } from '@crateflow/sdk';

/** One row of `artist.getSimilar`: `mbid` only when Last.fm gave a real one (it sends `""` or nothing otherwise). */
export interface LastFmSimilar {
  readonly name: string;
  readonly mbid: string | undefined;
  /** 0–1. */
  readonly match: number;
}

// shared/reference/lastfm-api.md §3: 8, 11, 16 and 29 pass; 4, 10 and 26 are the key; 6 with a key sent is "not found".
const RETRYABLE = new Set([8, 11, 16, 29]);
const BAD_KEY = new Set([4, 10, 26]);
const NOT_FOUND = 6;
const MBID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Last.fm's `artist.getSimilar`, by name (by MBID it often fails or finds the wrong artist, §4.1) with autocorrect.
 * The HTTP status says little: errors come as `{"error", "message"}` in a 200 or a 4xx, so the body decides (§3).
 * The key travels in the query string; it is never put in a message or a log line.
 */
export class LastFmApi {
  constructor(private readonly http: HttpClient, private readonly options: { url: string; apiKey: string; timeoutMs: number }) {}

  /** Similar artists, most similar first; an artist Last.fm does not know has none. */
  async similar(artist: string, limit: number, signal: AbortSignal): Promise<LastFmSimilar[]> {
    const url = new URL(this.options.url);
    const params = { method: 'artist.getSimilar', artist, autocorrect: '1', limit: String(limit), api_key: this.options.apiKey, format: 'json' };
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    let res;
    try {
      res = await this.http.request({ url, headers: { accept: 'application/json' }, timeoutMs: this.options.timeoutMs, signal });
    } catch (err: unknown) {
      if (isHttpRequestError(err) && err.reason !== 'aborted') throw new RetryLaterError(`Last.fm is unreachable: ${err.message}`, { cause: err });
      throw err;
    }
    const body = parse(res.text());
    if (!body) {
      if (res.status >= 500) throw new RetryLaterError(`Last.fm is unavailable (${res.status})`);
      throw new Error(`Last.fm answered artist.getSimilar with status ${res.status} and no JSON`);
    }
    const code = numberField(body, 'error');
    if (code !== undefined) {
      const message = `Last.fm error ${code}: ${stringField(body, 'message') ?? 'no message'}`;
      if (code === NOT_FOUND) return [];
      if (RETRYABLE.has(code)) throw new RetryLaterError(message);
      if (BAD_KEY.has(code)) throw new CredentialsError(`${message} (config key api_key)`);
      throw new Error(message);
    }
    const container = isRecord(body['similarartists']) ? body['similarartists'] : {};
    // §2: a single item may arrive as an object instead of an array.
    const rows = Array.isArray(container['artist']) ? arrayField(container, 'artist') : isRecord(container['artist']) ? [container['artist']] : [];
    return rows.filter(isRecord).flatMap(readRow).sort((a, b) => b.match - a.match).slice(0, limit);
  }
}

function readRow(row: JsonRecord): LastFmSimilar[] {
  const name = stringField(row, 'name');
  // §2: numbers arrive as strings ("0.511468"), sometimes as numbers.
  const raw = row['match'];
  const match = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
  if (!name || !Number.isFinite(match)) return [];
  // §2, §5: `mbid` may be a UUID, "" or absent; only a UUID is one.
  const mbid = stringField(row, 'mbid');
  return [{ name, mbid: mbid && MBID.test(mbid) ? mbid.toLowerCase() : undefined, match: Math.min(1, Math.max(0, match)) }];
}

function parse(text: string): JsonRecord | undefined {
  try {
    const body: unknown = JSON.parse(text);
    return isRecord(body) ? body : undefined;
  } catch (err: unknown) {
    // Safe to continue: a body that is not JSON (an outage page) is reported by status below.
    if (err instanceof SyntaxError) return undefined;
    throw err;
  }
}
