import { Type, type Static } from 'typebox';
import { ItemType, Reason, ReasonRef } from '@crateflow/sdk';
import { printableText } from '../schema/printable-text.js';

// Names and other one-line text refuse control characters (issue #27): a NUL stored in a name was accepted before.
const text = printableText;

/**
 * Why a candidate is proposed (the sdk's Reason, as discovery sources give it), at most 20 per candidate. Read-only
 * all the way down, as the store hands its records out. `refs` is optional here without the sdk's default, which
 * ajv cannot apply inside the body's union (one candidate or a list).
 */
const Reasons = Type.Immutable(
  Type.Array(
    Type.Immutable(Type.Object({ ...Reason.properties, refs: Type.Optional(Type.Immutable(Type.Array(Type.Immutable(ReasonRef), { maxItems: 50 }))) }, { additionalProperties: false })),
    { maxItems: 20, description: 'why the candidate is proposed, e.g. "similar to Boards of Canada", with what it refers to' },
  ),
);

/** What a caller may send to propose a candidate (for the queue or the wishlist). */
export const Candidate = Type.Object(
  {
    artist: text('artist name'),
    album: Type.Optional(text('album title')),
    title: Type.Optional(text('track title (for type "track")')),
    mbid: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$', description: 'MusicBrainz release (or release-group) id' })),
    type: Type.Optional(ItemType),
    source: Type.Optional(text('where the candidate came from (e.g. listenbrainz, lastfm, manual)', 100)),
    score: Type.Optional(Type.Number({ minimum: -1e9, maximum: 1e9, description: 'relevance; higher is better' })),
    cover_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2000, description: 'cover image URL' })),
    year: Type.Optional(Type.Integer({ minimum: 0, maximum: 9999 })),
    reasons: Type.Optional(Reasons),
  },
  { additionalProperties: false, $id: 'Candidate' },
);
export type Candidate = Static<typeof Candidate>;

export const QueueStatus = Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('rejected')]);
export type QueueStatus = Static<typeof QueueStatus>;

export const QueueItem = Type.Object(
  {
    id: Type.String(),
    artist: Type.String(),
    album: Type.Optional(Type.String()),
    title: Type.Optional(Type.String()),
    mbid: Type.Optional(Type.String()),
    type: ItemType,
    source: Type.String(),
    score: Type.Optional(Type.Number()),
    cover_url: Type.Optional(Type.String()),
    year: Type.Optional(Type.Integer()),
    reasons: Type.Optional(Reasons),
    status: QueueStatus,
    added_at: Type.String(),
    decided_at: Type.Optional(Type.String()),
    decided_by: Type.Optional(Type.String({ description: 'who decided: the user or API key name, or "link" for a decision link (absent when auth is disabled)' })),
    decided_via: Type.Optional(Type.String({ description: 'through which channel: "web", "api", or where the decision link was sent (e.g. "webhook", "ntfy:phone")' })),
    wishlist_id: Type.Optional(Type.String({ description: 'approved: the wishlist item the approval made, or the one that already wanted the album (absent when the library had it)' })),
    in_library: Type.Optional(Type.Boolean({ description: 'true when it applies (absent otherwise). Pending: the library has the album now; approved: the library had it when approved, nothing was downloaded' })),
    wishlisted: Type.Optional(Type.Boolean({ description: 'true when it applies (absent otherwise), pending items only: the album is on the wishlist already (added there directly)' })),
    rejected_before: Type.Optional(Type.Boolean({ description: 'true when it applies (absent otherwise): the item was rejected once and restored, or another proposal of the same album was rejected' })),
    requested_by: Type.Optional(Type.String({ description: 'a request: the user who asked for the album (source "request")' })),
    note: Type.Optional(Type.String({ description: 'a request: what the requester wrote with it' })),
    auto_approved: Type.Optional(Type.Boolean({ description: 'a request the auto-approve rule approved (within its requester\'s quota)' })),
    decline_reason: Type.Optional(Type.String({ description: 'rejected: the reason given (shown to the requester)' })),
    cancelled: Type.Optional(Type.Boolean({ description: 'rejected because the requester cancelled their request' })),
  },
  { additionalProperties: false, $id: 'QueueItem' },
);
export type QueueItem = Static<typeof QueueItem>;

/** What a candidate that was not added matched. */
export const DuplicateOf = Type.Object(
  {
    in: Type.Union([Type.Literal('queue'), Type.Literal('wishlist'), Type.Literal('library')], { description: 'where the match is' }),
    id: Type.String({ description: 'the queue or wishlist item id; for the library, the album\'s mbid or "Artist — Album"' }),
    status: Type.String({ description: 'the queue item status (pending, approved, rejected), the wishlist item status, or in_library' }),
    requested_by: Type.Optional(Type.String({ description: 'the user who requested it (answered to callers who may read everything)' })),
  },
  { additionalProperties: false, $id: 'DuplicateOf' },
);
export type DuplicateOf = Static<typeof DuplicateOf>;
