import { Type, type Static } from 'typebox';

export const ReleaseGroupTrack = Type.Object(
  {
    position: Type.Integer({ minimum: 1, description: '1-based, counted across every disc' }),
    title: Type.String(),
    length_s: Type.Optional(Type.Integer({ minimum: 0, description: 'seconds, when MusicBrainz knows' })),
  },
  { additionalProperties: false, $id: 'ReleaseGroupTrack' },
);
export type ReleaseGroupTrack = Static<typeof ReleaseGroupTrack>;

export const ResearchLinks = Type.Object(
  {
    musicbrainz: Type.String({ description: 'the release group on musicbrainz.org' }),
    listenbrainz: Type.String({ description: 'the album on listenbrainz.org' }),
    lastfm: Type.String({ description: 'the album on last.fm, by artist and title' }),
    bandcamp_search: Type.String({ description: 'a Bandcamp album search for artist and title' }),
  },
  { additionalProperties: false, $id: 'ResearchLinks' },
);
export type ResearchLinks = Static<typeof ResearchLinks>;

export const ReleaseGroupDetail = Type.Object(
  {
    mbid: Type.String({ description: 'the release group (the one that absorbed it, for a merged mbid)' }),
    title: Type.String(),
    artist: Type.String({ description: 'the artist credit as printed' }),
    year: Type.Optional(Type.Integer({ description: 'year of the first release, when known' })),
    primary_type: Type.Union([Type.String(), Type.Null()], { description: 'Album, EP, Single, …; null when MusicBrainz has none' }),
    secondary_types: Type.Array(Type.String(), { description: 'Compilation, Live, …; empty for a plain album' }),
    release_mbid: Type.Optional(Type.String({ description: 'the release the tracks come from: the earliest official one with the track count most releases share' })),
    tracks: Type.Array(ReleaseGroupTrack, { description: 'empty when the group has no release' }),
    links: ResearchLinks,
  },
  { additionalProperties: false, $id: 'ReleaseGroupDetail' },
);
export type ReleaseGroupDetail = Static<typeof ReleaseGroupDetail>;
