import { Type, type Static } from 'typebox';

export const SearchQuery = Type.Object(
  {
    q: Type.String({
      minLength: 1, maxLength: 200,
      description: 'an album title, or "Artist - Album" (a dash with spaces around it) to name the artist too',
    }),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 25 }),
  },
  { additionalProperties: false },
);
export type SearchQuery = Static<typeof SearchQuery>;

export const ReleaseGroupResult = Type.Object(
  {
    mbid: Type.String({ description: 'MusicBrainz release group id' }),
    artist: Type.String({ description: 'the artist credit as printed' }),
    title: Type.String(),
    year: Type.Optional(Type.Integer({ description: 'year of the first release, when known' })),
    primary_type: Type.Union([Type.String(), Type.Null()], { description: 'Album, EP, Single, …; null when MusicBrainz has none' }),
    secondary_types: Type.Array(Type.String(), { description: 'Compilation, Live, …; empty for a plain album' }),
    score: Type.Integer({ description: 'MusicBrainz relevance, 0–100' }),
    cover_url: Type.String({ description: 'where Crateflow serves its front cover (`/api/v1/covers/<mbid>`; 404 when it has none)' }),
    in_library: Type.Boolean({ description: 'the library has it (as of the last sync)' }),
    queued: Type.Boolean({ description: 'a pending queue item is this album' }),
    wishlisted: Type.Boolean({ description: 'a wishlist item is this album' }),
    rejected: Type.Boolean({ description: 'it was proposed and rejected (restore it with POST /queue/{id}/restore)' }),
  },
  { additionalProperties: false, $id: 'ReleaseGroupResult' },
);
export type ReleaseGroupResult = Static<typeof ReleaseGroupResult>;

export const SearchResults = Type.Object(
  {
    items: Type.Array(ReleaseGroupResult, { description: 'best match first' }),
    artist: Type.Optional(Type.String({ description: 'the artist part of `q`, when it named one' })),
    title: Type.String({ description: 'the title part of `q`' }),
  },
  { additionalProperties: false, $id: 'SearchResults' },
);
export type SearchResults = Static<typeof SearchResults>;
