import { Type, type Static } from 'typebox';
import { ItemType } from '@crateflow/sdk';

/** Where a request stands on its way to the library, for people. */
export const RequestStatus = Type.Union(
  [
    Type.Literal('requested'), Type.Literal('approved'), Type.Literal('searching'), Type.Literal('downloading'), Type.Literal('downloaded'),
    Type.Literal('in_library'), Type.Literal('declined'), Type.Literal('failed'), Type.Literal('cancelled'), Type.Literal('removed'),
  ],
  { description: 'requested → approved → searching → downloading → downloaded → in_library; or declined, failed, cancelled, removed (taken off the wishlist by an admin)' },
);
export type RequestStatus = Static<typeof RequestStatus>;

export const RequestItem = Type.Object(
  {
    id: Type.String({ description: 'the queue item id' }),
    artist: Type.String(),
    album: Type.Optional(Type.String()),
    title: Type.Optional(Type.String()),
    mbid: Type.Optional(Type.String()),
    type: ItemType,
    cover_url: Type.Optional(Type.String()),
    year: Type.Optional(Type.Integer()),
    requested_by: Type.String(),
    note: Type.Optional(Type.String()),
    requested_at: Type.String(),
    status: RequestStatus,
    status_text: Type.String({ description: 'the status in words, e.g. "Declined by alice: we have the remaster"' }),
    decline_reason: Type.Optional(Type.String()),
    decided_by: Type.Optional(Type.String()),
    decided_at: Type.Optional(Type.String()),
    auto_approved: Type.Optional(Type.Boolean()),
    progress: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'downloading: how far' })),
    error: Type.Optional(Type.String({ description: 'failed: what went wrong' })),
  },
  { additionalProperties: false, $id: 'RequestItem' },
);
export type RequestItem = Static<typeof RequestItem>;

export const RequestPage = Type.Object(
  { items: Type.Array(RequestItem), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() },
  { $id: 'RequestPage' },
);
export type RequestPage = Static<typeof RequestPage>;
