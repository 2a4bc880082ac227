import { Type, type ConfigProblem, type Static } from '@crateflow/sdk';

export const SimilarArtistsConfig = Type.Object(
  {
    seeds: Type.Union([Type.Literal('library'), Type.Literal('listenbrainz')], {
      default: 'library',
      description: 'where the seed artists come from: "library" (the artists you own most albums of) or "listenbrainz" (the user\'s top artists)',
    }),
    user: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'ListenBrainz user; required when seeds is "listenbrainz"' })),
    token: Type.Optional(Type.String({ minLength: 1, description: 'ListenBrainz user token, sent as "Authorization: Token …"; optional, never logged' })),
    api_key: Type.Optional(Type.String({
      minLength: 1,
      description: 'Last.fm API key: when set, artist.getSimilar is asked as well as ListenBrainz; never logged',
    })),
    listenbrainz_url: Type.String({ format: 'uri', pattern: '^https?://', default: 'https://api.listenbrainz.org', description: 'ListenBrainz API origin (top artists)' }),
    listenbrainz_labs_url: Type.String({
      format: 'uri', pattern: '^https?://', default: 'https://labs.api.listenbrainz.org', description: 'ListenBrainz Labs origin (similar artists)',
    }),
    lastfm_url: Type.String({ format: 'uri', pattern: '^https?://', default: 'https://ws.audioscrobbler.com/2.0/', description: 'Last.fm API endpoint' }),
    algorithm: Type.String({
      minLength: 1,
      default: 'session_based_days_7500_session_300_contribution_3_threshold_10_limit_100_filter_True_skip_30',
      description: 'the ListenBrainz Labs similarity algorithm (the one listenbrainz.org artist pages use)',
    }),
    max_seeds: Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'seed artists per run: each costs one ListenBrainz (and one Last.fm) request, cached for cache_days' }),
    similar_per_seed: Type.Integer({ minimum: 1, maximum: 100, default: 25, description: 'similar artists kept per seed, most similar first' }),
    albums_per_artist: Type.Integer({ minimum: 1, maximum: 20, default: 2, description: 'a similar artist\'s earliest studio albums considered; known ones (owned, queued, wished for, rejected) count, so later runs do not add the next one' }),
    include_secondary_types: Type.Boolean({ default: false, description: 'also propose albums with secondary types (compilations, live, soundtracks)' }),
    min_score: Type.Number({ minimum: 0, maximum: 1, default: 0, description: 'skip artists scoring below this (1 is the run\'s most similar artist)' }),
    max_candidates: Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'albums proposed per run at most' }),
    cache_days: Type.Integer({ minimum: 0, maximum: 90, default: 7, description: 'how long similar-artist lists and name lookups are kept in the plugin\'s storage' }),
    timeout_ms: Type.Integer({ minimum: 1000, maximum: 120_000, default: 20_000, description: 'deadline of each ListenBrainz or Last.fm request' }),
  },
  { additionalProperties: false },
);
export type SimilarArtistsConfig = Static<typeof SimilarArtistsConfig>;

/** What the schema cannot say: ListenBrainz seeds need a user. */
export function similarArtistsConfigProblems(config: SimilarArtistsConfig): ConfigProblem[] {
  return config.seeds === 'listenbrainz' && !config.user ? [{ path: 'user', message: 'required when seeds is "listenbrainz"' }] : [];
}
