import { Type } from 'typebox';
import { QueueItem } from './queue-item.schema.js';

// The queue API's selections and answers, apart from the item itself (queue-item.schema.ts).

export const QueueItemId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'queue item id' });

/** Which pending items a bulk decision is about. */
export const BulkSelection = Type.Object(
  {
    ids: Type.Optional(Type.Array(QueueItemId, { maxItems: 10000, description: 'queue item ids' })),
    mbids: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 10000, description: 'MusicBrainz ids of pending items' })),
  },
  { additionalProperties: false },
);
export const ApproveSelection = Type.Object(
  {
    ...BulkSelection.properties,
    all: Type.Optional(Type.Boolean({ description: 'approve every pending item' })),
  },
  { additionalProperties: false },
);
export const BulkResult = Type.Object(
  {
    success: Type.Boolean(),
    count: Type.Integer({ minimum: 0 }),
    message: Type.String(),
    in_library: Type.Optional(Type.Integer({ minimum: 0, description: 'approved items the library already had: approved, not downloaded again' })),
    wishlist_ids: Type.Optional(Type.Array(Type.String(), { description: 'approvals: the wishlist items they made or joined, in the order decided (none for albums the library had)' })),
  },
  { $id: 'BulkDecisionResult' },
);

/** A page of queue items: `GET /queue/pending` and `GET /queue?status=`. */
export const PendingPage = Type.Object(
  { items: Type.Array(QueueItem), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() },
  { $id: 'PendingPage' },
);

/** `GET /queue?status=`: a page of items with that status; decided ones carry the cursor of the next page. */
export const QueuePage = Type.Object(
  {
    ...PendingPage.properties,
    next_before: Type.Optional(Type.String({ description: 'approved or rejected: pass as `before` for the next (older) page; absent on the last page' })),
  },
  { $id: 'QueuePage' },
);

/** The answer of a decision on one item, or of its restore: the item as it is now. */
export const OneQueueItem = Type.Object({ item: QueueItem });

/** `GET /queue/sources`: where the pending items came from. */
export const PendingSources = Type.Object(
  {
    sources: Type.Array(
      Type.Object({ name: Type.String({ description: 'the `source` of queue items' }), pending: Type.Integer({ minimum: 1, description: 'pending items from it' }) }),
      { description: 'most pending items first' },
    ),
  },
  { $id: 'PendingSources' },
);
