import { Type, type Static } from 'typebox';
import { ItemType } from '../records.js';
import type { PluginLifecycle } from './plugin-lifecycle.js';

const MBID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';

/**
 * Something a reason points at, so a UI can link it (MusicBrainz, ListenBrainz) and a person can check it.
 *
 * @example
 * { type: 'artist', name: 'Boards of Canada', mbid: '69158f97-4c07-4c4e-baf8-4e4ab1ed666e' }
 */
export const ReasonRef = Type.Object(
  {
    type: Type.Union([Type.Literal('artist'), Type.Literal('release-group'), Type.Literal('recording'), Type.Literal('user')]),
    name: Type.String({ minLength: 1, maxLength: 500 }),
    mbid: Type.Optional(Type.String({ pattern: MBID_PATTERN })),
  },
  { additionalProperties: false },
);
export type ReasonRef = Static<typeof ReasonRef>;

/**
 * Why a source proposes a candidate, in words a person reads ("similar to Boards of Canada, Autechre (+3)") and
 * with what it refers to. `kind` groups reasons for filters and chips: the built-in sources use `listening`,
 * `similar-artists` and `new-release`; a source of your own may use its own word.
 *
 * @example
 * { kind: 'listening', text: 'recommended from your listening: 3 tracks', refs: [{ type: 'user', name: 'rob' }] }
 */
export const Reason = Type.Object(
  {
    kind: Type.String({ minLength: 1, maxLength: 50, pattern: '^[a-z0-9][a-z0-9-]*$' }),
    text: Type.String({ minLength: 1, maxLength: 300 }),
    refs: Type.Array(ReasonRef, { maxItems: 50, default: [] }),
  },
  { additionalProperties: false },
);
export type Reason = Static<typeof Reason>;

/**
 * A candidate a source proposes: a MusicBrainz release group (`mbid`) with its artist credit and title, a score
 * from 0 (weak) to 1 (strong) and at least one reason. The server adds it to the pending queue unless the user
 * already owns, queued, wishlisted or rejected it; it validates each candidate and counts the ones it refuses.
 *
 * @example
 * { artist: 'Autechre', album: 'Tri Repetae', type: 'album', mbid: '…', year: 1995, score: 0.82,
 *   reasons: [{ kind: 'similar-artists', text: 'similar to Boards of Canada, Aphex Twin', refs: [...] }] }
 */
export const SourceCandidate = Type.Object(
  {
    artist: Type.String({ minLength: 1, maxLength: 500 }),
    album: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'the track title (type "track")' })),
    type: ItemType,
    mbid: Type.String({ pattern: MBID_PATTERN, description: 'the MusicBrainz release group (lower case)' }),
    year: Type.Optional(Type.Integer({ minimum: 0, maximum: 9999 })),
    score: Type.Number({ minimum: 0, maximum: 1 }),
    reasons: Type.Array(Reason, { minItems: 1, maxItems: 20 }),
  },
  { additionalProperties: false },
);
export type SourceCandidate = Static<typeof SourceCandidate>;

/**
 * Where the server already has a release group: a source checks this before spending requests on a candidate.
 *
 * @example
 * if (run.known({ mbid, artist, album })) continue;
 */
export type KnownAs = 'library' | 'queue' | 'wishlist' | 'rejected';

/**
 * An artist of the user's library, with how many of its albums the user owns (a strong seed owns many).
 *
 * @example
 * { name: 'Boards of Canada', albums: 4 }
 */
export interface LibraryArtist {
  readonly name: string;
  readonly albums: number;
}

/**
 * What the server gives one run of a source.
 *
 * @example
 * for (const [i, seed] of seeds.entries()) { run.progress(i, seeds.length); … }
 */
export interface SourceRun {
  /** Aborted when the server shuts down or the run is cancelled: stop between requests and return. */
  readonly signal: AbortSignal;
  /** When this source's last run completed (ISO 8601), undefined before its first: `new-releases` looks from there. */
  readonly lastCompletedAt: string | undefined;
  /** How far the run is, for the job's progress and ETA: `done` of `total` units of your choice (seeds, pages). */
  progress(done: number, total?: number): void;
  /** The artists of the user's library (from the last library sync), most albums first. */
  libraryArtists(): Promise<readonly LibraryArtist[]>;
  /** Where the server already has this release group, or undefined: skip known ones to save requests. */
  known(candidate: { readonly mbid?: string; readonly artist: string; readonly album?: string }): KnownAs | undefined;
  /**
   * Says, in words a person reads, why this run proposes nothing (or little): shown with the run on the Sources
   * page and the empty queue. The last call wins. Optional (sdk 1.4): feature-detect with `run.explain?.(…)`.
   *
   * @example
   * if (artists.length === 0) run.explain?.('your library is empty, so there are no artists to start from: add albums');
   */
  explain?(text: string): void;
}

/**
 * A discovery source (kind `source`): proposes candidates for the pending queue, explained and scored.
 *
 * `discover()` yields candidates in batches. The server commits each batch to the queue before it asks for the
 * next one, that is before your generator resumes after `yield`: so keep your own cursor in `context.storage`
 * and move it past a batch right after the `yield` returns. A run after a kill -9 then resumes where the last
 * one stopped, losing nothing; at worst it proposes the last batch again, which the server counts as duplicates.
 * A run that reaches its end should reset the cursor. MusicBrainz goes through
 * `context.musicbrainz` (declare `uses: ['musicbrainz']` in the manifest), whose cache makes a second run cheap.
 *
 * @example
 * create: ({ storage, musicbrainz }) => ({
 *   async *discover(run) {
 *     const artists = await run.libraryArtists();
 *     for (const [i, artist] of artists.entries()) {
 *       if (run.signal.aborted) return;
 *       run.progress(i, artists.length);
 *       yield await candidatesFor(artist, run);
 *       await storage.set('cursor', i + 1);   // the server has taken the batch
 *     }
 *   },
 * })
 */
export interface DiscoverySource extends PluginLifecycle {
  discover(run: SourceRun): AsyncIterable<readonly SourceCandidate[]>;
}
