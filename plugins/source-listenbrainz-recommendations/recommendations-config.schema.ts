import { Type, type Static } from '@crateflow/sdk';

export const RecommendationsConfig = Type.Object(
  {
    user: Type.String({ minLength: 1, maxLength: 100, description: 'the ListenBrainz user whose collaborative-filtering recommendations are read' }),
    token: Type.Optional(Type.String({
      minLength: 1,
      description: 'a ListenBrainz user token (listenbrainz.org/settings); optional for this endpoint, sent as "Authorization: Token …" and never logged',
    })),
    listenbrainz_url: Type.String({
      format: 'uri', pattern: '^https?://', default: 'https://api.listenbrainz.org',
      description: 'ListenBrainz API origin (paths start with /1); point it at a mirror or a test fake',
    }),
    max_recordings: Type.Integer({
      minimum: 1, maximum: 1000, default: 200,
      description: 'recommended recordings read per run, best first (one request; ListenBrainz serves at most 1000); each costs one MusicBrainz lookup the first time',
    }),
    skip_listened: Type.Boolean({ default: true, description: 'ignore recommended recordings the user has already listened to (latest_listened_at set)' }),
    include_secondary_types: Type.Boolean({
      default: false,
      description: 'also propose albums with secondary types (compilations, live, soundtracks); by default only studio albums (primary type Album, no secondary type)',
    }),
    min_score: Type.Number({ minimum: 0, maximum: 1, default: 0, description: 'skip albums scoring below this (1 is the run\'s best-recommended album)' }),
    max_candidates: Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'albums proposed per run at most' }),
    timeout_ms: Type.Integer({ minimum: 1000, maximum: 120_000, default: 20_000, description: 'deadline of each ListenBrainz request' }),
  },
  { additionalProperties: false },
);
export type RecommendationsConfig = Static<typeof RecommendationsConfig>;
