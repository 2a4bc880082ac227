import { Type, type Static } from '@crateflow/sdk';

export const NewReleasesConfig = Type.Object(
  {
    first_run_days: Type.Integer({ minimum: 1, maximum: 3650, default: 90, description: 'on the first run, how far back "new" reaches (days)' }),
    overlap_days: Type.Integer({
      minimum: 0, maximum: 365, default: 14,
      description: 'later runs look back this many days before the last completed run, for releases entered into MusicBrainz late (known ones are skipped)',
    }),
    max_artists: Type.Integer({ minimum: 1, maximum: 20_000, default: 2000, description: 'library artists followed, most albums owned first' }),
    include_secondary_types: Type.Boolean({ default: false, description: 'also propose compilations, live albums and soundtracks; by default studio albums only' }),
    max_candidates: Type.Integer({ minimum: 1, maximum: 1000, default: 200, description: 'albums proposed per run at most' }),
    cache_days: Type.Integer({ minimum: 0, maximum: 365, default: 30, description: 'how long an artist name\'s MusicBrainz match is kept in the plugin\'s storage' }),
  },
  { additionalProperties: false },
);
export type NewReleasesConfig = Static<typeof NewReleasesConfig>;
