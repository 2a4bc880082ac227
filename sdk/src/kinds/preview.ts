import { Type, type Static } from 'typebox';
import type { PluginLifecycle } from './plugin-lifecycle.js';

/**
 * One track of an album with a short audio preview a browser can play (sdk 1.3). `preview_url` is an MP3 of at most
 * 30 seconds on one of the provider's {@link PreviewProvider.origins} (https in production); the server drops a
 * track whose URL lies elsewhere, because the UI's Content-Security-Policy would refuse to play it.
 *
 * @example
 * { title: 'One More Time', artist: 'Daft Punk', position: 1, duration_s: 320, source: 'deezer',
 *   preview_url: 'https://cdnt-preview.dzcdn.net/api/1/1/….mp3?hdnea=…', link: 'https://www.deezer.com/track/3135553' }
 */
export const PreviewTrack = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 500 }),
    artist: Type.String({ minLength: 1, maxLength: 500 }),
    position: Type.Optional(Type.Integer({ minimum: 1, maximum: 9999, description: 'the track number on the whole album, counting on across discs (the first track of disc 2 after a 9-track disc 1 is 10)' })),
    disc: Type.Optional(Type.Integer({ minimum: 1, maximum: 999, description: 'the disc the track is on; given for albums of more than one disc (sdk 1.4, optional)' })),
    duration_s: Type.Optional(Type.Integer({ minimum: 0, maximum: 86400, description: 'the whole track, not the preview' })),
    preview_url: Type.String({ pattern: '^https?://', maxLength: 2000, description: 'an MP3 of at most 30 s; may stop working after a few minutes' }),
    source: Type.String({ minLength: 1, maxLength: 50, pattern: '^[a-z0-9][a-z0-9-]*$', description: 'where the preview comes from, e.g. deezer' }),
    link: Type.Optional(Type.String({ pattern: '^https?://', maxLength: 2000, description: "the track's page at the source" })),
  },
  { additionalProperties: false, $id: 'PreviewTrack' },
);
export type PreviewTrack = Static<typeof PreviewTrack>;

/**
 * What the server asks a preview provider for: an album, by its artist credit and title, with its MusicBrainz
 * release group when known.
 *
 * @example
 * { artist: 'Boards of Canada', album: 'Geogaddi', mbid: '…', signal }
 */
export interface PreviewQuery {
  readonly artist: string;
  readonly album: string;
  /** The MusicBrainz release group, lower case; a provider that knows MBIDs may match by it. */
  readonly mbid?: string;
  /** Aborted when the server shuts down or stops waiting: stop between requests. */
  readonly signal: AbortSignal;
}

/**
 * A preview provider (kind `preview`, sdk 1.3): finds short previews of an album's tracks so a person can listen
 * before deciding. The server calls it only when someone presses play, caches the answer for a few minutes and
 * validates every track against {@link PreviewTrack}.
 *
 * Answer `[]` when the album is not found (that is not an error). Throw a `RetryLaterError` when the service is
 * over its quota or unreachable: the server answers 503 with `Retry-After`.
 *
 * `origins` lists where preview URLs come from (`https://cdn.example.com`, or `https://*.example.com` for every
 * subdomain): the UI's Content-Security-Policy allows media from exactly these.
 *
 * @example
 * create: ({ config, http }) => ({
 *   origins: ['https://previews.example.com'],
 *   async findPreviews({ artist, album, signal }) {
 *     const res = await http.request({ url: `${config.url}/albums?q=${encodeURIComponent(`${artist} ${album}`)}`, signal });
 *     return toPreviewTracks(res.json());
 *   },
 * })
 */
export interface PreviewProvider extends PluginLifecycle {
  readonly origins: readonly string[];
  findPreviews(query: PreviewQuery): Promise<PreviewTrack[]>;
}
