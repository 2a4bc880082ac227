import { Type, type Static } from '@crateflow/sdk';
import { DURATION_PATTERN } from './duration-ms.js';

// A year: the server waits no longer than that after a failure (a longer wait would not be a date it can keep), so
// config refuses more instead of shortening it silently.
const MAX_RETRY_AFTER_MS = 365 * 86_400_000;

const Search = Type.Object(
  {
    query_templates: Type.Array(Type.String({ minLength: 1 }), {
      minItems: 1,
      default: ['{artist} {album}', '{album}'],
      description: 'search texts tried in order until one finds a usable folder; placeholders {artist}, {album}, {title}, {year}',
    }),
    search_timeout_ms: Type.Integer({
      minimum: 1000,
      maximum: 300_000,
      default: 15_000,
      // slskd documents searchTimeout in seconds but hands it to Soulseek.NET as milliseconds (slskd-api.md §4).
      description: 'slskd searchTimeout: idle time after the last response before a search completes, in milliseconds',
    }),
    response_limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'stop a search after this many peers answered' }),
    file_limit: Type.Integer({
      minimum: 1,
      maximum: 100_000,
      default: 10_000,
      description: 'stop a search after this many files; the responses are read whole however big (about 1 KiB per file is allowed)',
    }),
    max_wait_ms: Type.Integer({
      minimum: 1000,
      maximum: 3_600_000,
      default: 120_000,
      description:
        'a search still running after this long is stopped and its responses are used; counted from when slskd starts running it, not while it waits for one of its 2 search slots. Also how long a completed search\'s responses are waited for',
    }),
    min_interval_ms: Type.Integer({
      minimum: 0,
      maximum: 600_000,
      default: 10_000,
      // Soulseek's server bans an account for about 30 minutes when searches come too fast (Soularr, SoulSync and
      // Tubifarry users report it); several wanted albums starting at once must not become a burst.
      description: 'at least this long between two searches started by Crateflow, in milliseconds',
    }),
  },
  { additionalProperties: false, default: {} },
);

const Quality = Type.Object(
  {
    preferred_formats: Type.Array(Type.String({ pattern: '^[a-z0-9]+$' }), {
      minItems: 1,
      default: ['flac', 'mp3'],
      description: 'acceptable audio formats (file extensions, lower case), best first; folders in other formats are ignored',
    }),
    lossless_first: Type.Boolean({ default: true, description: 'rank lossless formats above lossy ones whatever their order in preferred_formats' }),
    min_bitrate: Type.Integer({ minimum: 0, maximum: 10_000, default: 192, description: 'lossy folders with a file reported below this bitrate (kbps) are ignored' }),
    excluded_terms: Type.Array(Type.String({ minLength: 1 }), {
      default: ['karaoke', 'tribute'],
      description: 'folders whose path or file names contain one of these words are ignored (unless the wanted artist or album contains it)',
    }),
    track_count_tolerance: Type.Integer({
      minimum: 0,
      maximum: 50,
      default: 2,
      description: 'a folder with this many fewer tracks than most results for the album still counts as complete (with a penalty)',
    }),
  },
  { additionalProperties: false, default: {} },
);

export const SlskdConfig = Type.Object(
  {
    url: Type.String({ format: 'uri', pattern: '^https?://', description: 'slskd base URL, e.g. http://slskd:5030' }),
    api_key: Type.String({ minLength: 1, description: 'an slskd API key (web.authentication.api_keys); sent as X-API-Key' }),
    url_base: Type.String({ default: '', pattern: '^(/.*)?$', description: "slskd's web.url_base when it is not /, e.g. /slskd" }),
    downloads_dir: Type.String({
      minLength: 1,
      description:
        "slskd's downloads directory as Crateflow sees it (absolute); a finished album is reported as <downloads_dir>/<Artist - Album [id]> with slskd 0.26+, else <downloads_dir>/<remote folder name>",
    }),
    stall_timeout: Type.String({
      pattern: DURATION_PATTERN,
      default: '30m',
      description:
        'a candidate folder that makes no progress this long (still "Queued, Remotely", stuck at 0 %, or finished files never reaching downloads_dir) is cancelled and the next candidate tried',
    }),
    search: Search,
    quality: Quality,
    max_candidates: Type.Integer({ minimum: 1, maximum: 50, default: 8, description: 'how many of the best folders of a search are kept to fall back on' }),
    retry_after_no_results_ms: Type.Integer({
      minimum: 0,
      maximum: MAX_RETRY_AFTER_MS,
      default: 6 * 3_600_000,
      description: 'when no search finds a usable folder, the item goes back to wanted and is tried again after this long',
    }),
    retry_after_all_failed_ms: Type.Integer({
      minimum: 0,
      maximum: MAX_RETRY_AFTER_MS,
      default: 3_600_000,
      description: 'when every candidate folder failed (offline, rejected, broken files), the item is tried again after this long',
    }),
  },
  { additionalProperties: false },
);
export type SlskdConfig = Static<typeof SlskdConfig>;
export type QualityPrefs = SlskdConfig['quality'];
