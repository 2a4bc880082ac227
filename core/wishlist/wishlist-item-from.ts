import type { ItemType } from '@crateflow/sdk';
import type { WishlistItem } from './wishlist-item.schema.js';

/** What a wishlist item is made from: a candidate sent to the API, or an approved queue item. */
export interface WishlistSource {
  artist: string;
  album?: string;
  title?: string;
  mbid?: string;
  year?: number;
  type?: ItemType;
}

/** A candidate without a `type` is an album unless it names only a track title. */
export function itemTypeOf(source: WishlistSource): ItemType {
  return source.type ?? (source.album || !source.title ? 'album' : 'track');
}

/** The release fields `source` has (album, title, mbid, year), for a record that must not hold undefined members. */
export function releaseFieldsOf(source: Readonly<WishlistSource>): Pick<WishlistSource, 'album' | 'title' | 'mbid' | 'year'> {
  return {
    ...(source.album !== undefined ? { album: source.album } : {}),
    ...(source.title !== undefined ? { title: source.title } : {}),
    ...(source.mbid !== undefined ? { mbid: source.mbid } : {}),
    ...(source.year !== undefined ? { year: source.year } : {}),
  };
}

/** A new `wanted` wishlist item for `source`, copying only the fields it has. */
export function wishlistItemFrom(source: WishlistSource, fields: { id: string; added_at: string; queue_id?: string; requested_by?: string }): WishlistItem {
  return {
    id: fields.id,
    artist: source.artist,
    ...releaseFieldsOf(source),
    type: itemTypeOf(source),
    status: 'wanted',
    added_at: fields.added_at,
    ...(fields.queue_id !== undefined ? { queue_id: fields.queue_id } : {}),
    ...(fields.requested_by !== undefined ? { requested_by: fields.requested_by } : {}),
  };
}
