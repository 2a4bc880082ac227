import { Type, type Static } from 'typebox';
import { ItemType } from '@crateflow/sdk';

export const WishlistStatus = Type.Union([Type.Literal('wanted'), Type.Literal('downloading'), Type.Literal('downloaded'), Type.Literal('failed')]);
export type WishlistStatus = Static<typeof WishlistStatus>;

export const WishlistItem = Type.Object(
  {
    id: Type.String(),
    artist: Type.String(),
    album: Type.Optional(Type.String()),
    title: Type.Optional(Type.String()),
    mbid: Type.Optional(Type.String()),
    type: ItemType,
    year: Type.Optional(Type.Integer()),
    status: WishlistStatus,
    added_at: Type.String(),
    download_path: Type.Optional(Type.String()),
    queue_id: Type.Optional(Type.String({ description: 'the queue item it was approved from' })),
    requested_by: Type.Optional(Type.String({ description: 'the user whose request it was approved from' })),
    not_before: Type.Optional(Type.String({ description: 'no download attempt before this time (after a search found nothing)' })),
    download_state: Type.Optional(Type.Union([Type.Literal('queued'), Type.Literal('searching'), Type.Literal('downloading')], {
      description: 'in answers only, while status is downloading: the state of its download, the word GET /downloads uses (queued: handed to the client, no files yet)',
    })),
  },
  { additionalProperties: false, $id: 'WishlistItem' },
);
export type WishlistItem = Static<typeof WishlistItem>;

/** A page of the wishlist: `GET /wishlist`. */
export const WishlistPage = Type.Object({ items: Type.Array(WishlistItem), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() });
