import { PreviewTrack } from '@crateflow/sdk';
import { Type, type Static } from 'typebox';
import { printableText } from '../schema/printable-text.js';

const MBID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

export const PreviewsQuery = Type.Object(
  {
    mbid: Type.Optional(Type.String({ pattern: MBID, description: 'the MusicBrainz release group; alone, its artist and title come from the queue, the wishlist or MusicBrainz' })),
    artist: Type.Optional(printableText('the artist credit (with `album`, instead of or besides `mbid`)')),
    album: Type.Optional(printableText('the album title (with `artist`)')),
  },
  { additionalProperties: false },
);
export type PreviewsQuery = Static<typeof PreviewsQuery>;

export const Previews = Type.Object(
  {
    artist: Type.String({ description: 'the artist the provider was asked about' }),
    album: Type.String({ description: 'the album the provider was asked about' }),
    mbid: Type.Optional(Type.String({ description: 'the release group, when the request named one' })),
    source: Type.String({ description: 'the preview provider (its plugin name, e.g. preview-deezer)' }),
    tracks: Type.Array(PreviewTrack, { description: 'in album order; empty when the provider does not have the album. Preview URLs may stop working after a few minutes: ask again' }),
  },
  { additionalProperties: false, $id: 'Previews' },
);
export type Previews = Static<typeof Previews>;
