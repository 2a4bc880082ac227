import { Type } from 'typebox';
import { route, type RouteSpec } from '../http/route.js';
import { ApproveSelection, BulkResult, BulkSelection, OneQueueItem, PendingPage, PendingSources, QueueItemId, QueuePage } from './queue-api.schema.js';
import { DuplicateOf, QueueItem, QueueStatus } from './queue-item.schema.js';
import type { QueueService, RequestTerms } from './queue-service.js';
import { deciderOf } from './decider.js';
import type { ProposalIntake } from './proposal-intake.js';
import { ProposedCandidate } from './proposed-candidate.schema.js';
import { PageLimit, PageOffset } from '../http/page-query.schema.js';
import type { Identity } from '@crateflow/sdk';
import { ValidationError } from '../errors/validation-error.js';
import { printableText } from '../schema/printable-text.js';

const MAX_BATCH = 1000;
/** Albums one request may name: a person asking, not a bot proposing. */
const MAX_REQUESTS = 50;
const DeclineReason = printableText('why it was declined; the requester sees it', 500);
/** What POST /queue takes: a candidate, and for a request what the requester writes with it. */
const ProposedRequest = Type.Object(
  { ...ProposedCandidate.properties, note: Type.Optional(printableText('a request: a note for the admin (e.g. "the 2011 remaster, please")', 500)) },
  { additionalProperties: false, $id: 'ProposedRequest' },
);
const StatusQuery = Type.Object(
  {
    status: QueueStatus,
    limit: PageLimit,
    offset: PageOffset,
    before: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,14}$', description: 'approved or rejected only: the `next_before` of the previous page, for the items decided before its last one (deep pages cost what the first does, unlike offset)' })),
  },
  { additionalProperties: false },
);
export const AddResult = Type.Object(
  {
    items: Type.Array(QueueItem),
    duplicates: Type.Integer({ description: 'how many candidates were not added' }),
    skipped: Type.Array(
      Type.Object({
        index: Type.Integer({ description: 'position of the candidate in the request (0 for a single one)' }),
        artist: Type.String(),
        album: Type.Optional(Type.String()),
        title: Type.Optional(Type.String()),
        duplicate_of: DuplicateOf,
      }),
      { description: 'each candidate that was not added, with what it matched' },
    ),
  },
  { $id: 'QueueAddResult' },
);
const PendingQuery = Type.Object(
  {
    limit: PageLimit,
    offset: PageOffset,
    sort: Type.Union([Type.Literal('added_at'), Type.Literal('score'), Type.Literal('artist'), Type.Literal('year')], { default: 'added_at' }),
    order: Type.Optional(Type.Union([Type.Literal('desc'), Type.Literal('asc')], { description: 'default: asc (A–Z) for sort=artist, desc (newest, best, latest first) otherwise' })),
    source: Type.Optional(Type.String({ maxLength: 100, description: 'only items from this source' })),
    q: Type.Optional(Type.String({ maxLength: 200, description: 'words that must all appear in artist, album, title or source' })),
    hide_owned: Type.Boolean({ default: false, description: 'leave out albums already in the library or on the wishlist' }),
  },
  { additionalProperties: false },
);

/** The queue API (CONTRACT §2 "Queue"). */
export function queueRoutes(queue: QueueService, intake: ProposalIntake, termsFor: (identity: Identity | null) => RequestTerms): RouteSpec[] {
  return [
    route({
      method: 'get', path: '/queue/pending', tag: 'queue', access: 'read',
      summary: 'Pending candidates, paged, sorted and filtered',
      query: PendingQuery,
      response: PendingPage,
      // A name sorts A–Z by default; times, scores and years newest or best first.
      handle: ({ query }) => queue.pendingPage({ ...query, order: query.order ?? (query.sort === 'artist' ? 'asc' : 'desc') }),
    }),
    route({
      method: 'get', path: '/queue/sources', tag: 'queue', access: 'read',
      summary: 'The sources of pending items, with how many each has waiting (for a source filter)',
      response: PendingSources,
      handle: () => ({ sources: queue.pendingSources() }),
    }),
    route({
      method: 'post', path: '/queue', tag: 'queue', access: ['decide', 'request'], status: 201,
      summary: 'Add one candidate or up to 1000 (a requester: a request, up to 50); duplicates of queued, wishlisted or owned albums are skipped',
      description:
        'A candidate may give only `mbid` (a MusicBrainz release group; at most 10 such per request): artist, album, year and ' +
        'cover are then filled from MusicBrainz before it is stored (400 naming `mbid` when MusicBrainz does not know it, 503 ' +
        'when it cannot be reached; nothing is stored then). Albums sent with artist and ' +
        'album but no mbid are stored at once and looked up in the background. A caller without the `decide` scope (a ' +
        'requester) makes requests: source `request`, `requested_by` them, with their `note`; approved at once when ' +
        '`requests.auto_approve` applies to them and their quota has room, else pending for an admin.',
      body: Type.Union([ProposedRequest, Type.Array(ProposedRequest, { minItems: 1, maxItems: MAX_BATCH })]),
      errors: [429, 503, 507],
      response: AddResult,
      handle: async ({ body, identity, scopes }) => {
        const batch = Array.isArray(body);
        const proposals = batch ? body : [body];
        const requesting = !scopes.has('decide');
        if (requesting && proposals.length > MAX_REQUESTS) throw new ValidationError([{ path: 'body', message: `a request names at most ${MAX_REQUESTS} albums` }]);
        const withNote = proposals.findIndex((proposal) => proposal.note !== undefined);
        if (!requesting && withNote >= 0) throw new ValidationError([{ path: batch ? `body[${withNote}].note` : 'body.note', message: 'is for requests; a caller who may decide adds candidates without one' }]);
        const candidates = await intake.resolve(proposals.map(({ note: _note, ...candidate }) => candidate), (index) => (batch ? `body[${index}]` : 'body'));
        if (requesting) {
          // Each album keeps its own note. What ranks or dresses a candidate (score, reasons, a cover from anywhere) is
          // the sources' to say, not a requester's: the admin's list must not be reordered or decorated by one.
          const requested = candidates.map(({ source: _source, score: _score, reasons: _reasons, cover_url: _cover, ...candidate }, index) => {
            const note = proposals[index]?.note;
            return note === undefined ? candidate : { ...candidate, note };
          });
          const result = await queue.request(requested, termsFor(identity));
          // Who asked for an album already wanted is for those who may read everything; the requester hears only "requested".
          return scopes.has('read') ? result : { ...result, skipped: result.skipped.map(({ duplicate_of: { requested_by: _by, ...match }, ...rest }) => ({ ...rest, duplicate_of: match })) };
        }
        // Without a source of its own, an item says who proposed it: the API key's identity (a bot's name, or the user it acts for), else "api".
        const proposer = identity?.via === 'api-key' ? identity.name : 'api';
        return queue.add(candidates.map((candidate) => (candidate.source === undefined ? { ...candidate, source: proposer } : candidate)));
      },
    }),
    route({
      method: 'get', path: '/queue', tag: 'queue', access: 'read',
      summary: 'Queue items by status: pending (newest first), approved or rejected (newest decision first)',
      query: StatusQuery,
      response: QueuePage,
      handle: ({ query }) => queue.list(query.status, query.limit, query.offset, query.before),
    }),
    route({
      method: 'post', path: '/queue/:id/restore', tag: 'queue', access: 'decide', errors: [404, 409],
      summary: 'Put a rejected item back into the pending queue',
      params: Type.Object({ id: QueueItemId }),
      response: OneQueueItem,
      handle: async ({ params }) => ({ item: await queue.restore(params.id) }),
    }),
    route({
      method: 'post', path: '/queue/approve', tag: 'queue', access: 'decide',
      summary: 'Approve pending items onto the wishlist (by ids, mbids, or all)',
      body: ApproveSelection,
      response: BulkResult,
      handle: async ({ body, identity }) => {
        const { count, owned, wishlistIds } = await queue.decideMany(body, 'approved', deciderOf(identity));
        const note = owned > 0 ? ` (${owned} already in the library, not downloaded again)` : '';
        return { success: true, count, message: `Approved ${count} item${count === 1 ? '' : 's'}${note}`, ...(owned > 0 ? { in_library: owned } : {}), wishlist_ids: wishlistIds };
      },
    }),
    route({
      method: 'post', path: '/queue/reject', tag: 'queue', access: 'decide',
      summary: 'Reject pending items (by ids or mbids), with an optional reason a requester sees',
      body: Type.Object({ ...BulkSelection.properties, reason: Type.Optional(DeclineReason) }, { additionalProperties: false }),
      response: BulkResult,
      handle: async ({ body, identity }) => {
        const { reason, ...selection } = body;
        const { count } = await queue.decideMany(selection, 'rejected', { ...deciderOf(identity), ...(reason === undefined ? {} : { reason }) });
        return { success: true, count, message: `Rejected ${count} item${count === 1 ? '' : 's'}` };
      },
    }),
    route({
      method: 'post', path: '/queue/:id/approve', tag: 'queue', access: 'decide', errors: [404, 409],
      summary: 'Approve one pending item',
      params: Type.Object({ id: QueueItemId }),
      response: OneQueueItem,
      handle: async ({ params, identity }) => ({ item: await queue.decideOne(params.id, 'approved', deciderOf(identity)) }),
    }),
    route({
      method: 'post', path: '/queue/:id/reject', tag: 'queue', access: 'decide', errors: [404, 409],
      summary: 'Reject one pending item; declining a request, give the requester a `reason`',
      params: Type.Object({ id: QueueItemId }),
      body: Type.Object({ reason: Type.Optional(DeclineReason) }, { additionalProperties: false }),
      bodyOptional: true,
      response: OneQueueItem,
      handle: async ({ params, identity, body }) => {
        const reason = body?.reason;
        return { item: await queue.decideOne(params.id, 'rejected', { ...deciderOf(identity), ...(reason === undefined ? {} : { reason }) }) };
      },
    }),
  ];
}
