import { inject, injectable } from 'tsyringe';
import type { Clock } from '@crateflow/sdk';
import type { AppConfig } from '../config/app-config.schema.js';
import { Tokens } from '../di/tokens.js';
import { DownloadsTable } from '../downloads/downloads-table.js';
import { ConflictError } from '../errors/conflict-error.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { StorageFullError } from '../errors/storage-full-error.js';
import { TooManyWaitingRequestsError } from '../errors/too-many-waiting-requests-error.js';
import { ValidationError } from '../errors/validation-error.js';
import { eventDataOf } from '../events/event-data-of.js';
import { UnitOfWork, type Emit } from '../events/unit-of-work.js';
import { SerializedJson } from '../http/serialized-json.js';
import { LibraryTable } from '../library/library-table.js';
import type { Store } from '../storage/store.js';
import { WishlistTable } from '../wishlist/wishlist-table.js';
import { itemTypeOf, wishlistItemFrom } from '../wishlist/wishlist-item-from.js';
import { AlbumRegistry } from './album-registry.js';
import { CANCELLED_BY_REQUESTER, type Decider } from './decider.js';
import type { Candidate, DuplicateOf, QueueItem, QueueStatus } from './queue-item.schema.js';
import { QueueItemFlagger } from './queue-item-flags.js';
import { QueueTable, type DecidedStatus, type PendingFilter, type QueuePosition } from './queue-table.js';
import { SerializedPageCache } from './serialized-page-cache.js';

export interface Selection {
  ids?: string[];
  mbids?: string[];
  all?: boolean;
}

export type Decision = DecidedStatus;

/** Who requests, and what the household's rules grant them. */
export interface RequestTerms {
  requester: string;
  /** The auto-approve rule applies to them. */
  autoApprove: boolean;
  /** At most `albums` automatic approvals in any `perMs`; absent: no limit. */
  quota?: { albums: number; perMs: number };
  /** Requests of theirs that may wait for an admin at once: a person asking, not a flood. */
  maxWaiting: number;
}

/** An album a person asks for, with what they wrote about it. */
export type RequestedCandidate = Candidate & { note?: string };

export interface AddResult {
  items: QueueItem[];
  duplicates: number;
  /** One entry per candidate that was not added, in the order sent: what it matched. */
  skipped: { index: number; artist: string; album?: string; title?: string; duplicate_of: DuplicateOf }[];
}

/** A source of pending items and how many it has in the queue. */
export interface PendingSource {
  name: string;
  pending: number;
}

export interface Page {
  items: QueueItem[];
  total: number;
  limit: number;
  offset: number;
}

/** A page of decided items: `next_before` is the cursor of the older page after it, when there is one. */
export interface DecidedPage extends Page {
  next_before?: string;
}

/**
 * The pending queue: candidates come in (de-duplicated against the queue, its decided items, the wishlist and the
 * library), and a person approves them onto the wishlist or rejects them. Decided items stay in the queue table,
 * numbered in the order they were decided; a rejected one can be restored. Every change is committed before its
 * event fires.
 */
@injectable()
export class QueueService {
  private readonly pages = new SerializedPageCache();
  private readonly flagger: QueueItemFlagger;

  constructor(
    @inject(Tokens.Store) private readonly store: Store,
    @inject(UnitOfWork) private readonly unitOfWork: UnitOfWork,
    @inject(QueueTable) private readonly queue: QueueTable,
    @inject(WishlistTable) private readonly wishlist: WishlistTable,
    @inject(DownloadsTable) private readonly downloads: DownloadsTable,
    @inject(LibraryTable) private readonly library: LibraryTable,
    @inject(AlbumRegistry) private readonly known: AlbumRegistry,
    @inject(Tokens.Config) private readonly config: AppConfig,
    @inject(Tokens.Clock) private readonly clock: Clock,
    @inject(Tokens.NewId) private readonly newId: () => string,
  ) {
    this.flagger = new QueueItemFlagger(queue, wishlist, library);
  }

  // Async, so that a refusal (507, 400) rejects the promise as a failed commit does, never throws at the caller.
  async add(candidates: readonly Candidate[]): Promise<AddResult> {
    this.checkRoom(candidates.length);
    return this.unitOfWork.mutate((emit) => {
      const added: QueueItem[] = [];
      const skipped: AddResult['skipped'] = [];
      const now = this.timestamp();
      candidates.forEach((candidate, index) => {
        // Asked inside the transaction: a candidate added earlier in the same batch is known by then.
        const duplicateOf = this.duplicateOf(candidate);
        if (duplicateOf) {
          skipped.push({ index, artist: candidate.artist, ...nameFields(candidate), duplicate_of: this.withRequester(duplicateOf) });
          return;
        }
        const item: QueueItem = {
          id: this.newId(),
          ...candidate,
          type: itemTypeOf(candidate),
          source: candidate.source ?? 'api',
          status: 'pending',
          added_at: now,
        };
        this.queue.insert(item);
        added.push(item);
        emit('queue_added', { ...eventDataOf(item), id: item.id });
      });
      return { items: added, duplicates: skipped.length, skipped };
    });
  }

  /**
   * A person's request (issue #31): added like a candidate (source `request`, `requested_by`, their note) unless
   * the album is known already. When the auto-approve rule applies to them and their quota has room, it is
   * approved at once and never waits in the queue. The quota is counted inside the transaction, after the requests
   * committed before it and those earlier in the same commit: 50 requests at once at a quota of 5 approve 5.
   */
  async request(candidates: readonly RequestedCandidate[], terms: RequestTerms): Promise<AddResult> {
    this.checkRoom(candidates.length);
    return this.unitOfWork.mutate((emit) => {
      const items: QueueItem[] = [];
      const skipped: AddResult['skipped'] = [];
      const now = this.clock.now();
      candidates.forEach((candidate, index) => {
        const duplicateOf = this.duplicateOf(candidate);
        if (duplicateOf) {
          skipped.push({ index, artist: candidate.artist, ...nameFields(candidate), duplicate_of: this.withRequester(duplicateOf) });
          return;
        }
        const automatic = terms.autoApprove && (terms.quota === undefined || this.queue.autoApprovedSince(terms.requester, now - terms.quota.perMs) < terms.quota.albums);
        // Past the limit the whole request is refused (the change is undone): nothing of it was added.
        if (!automatic && this.queue.waitingRequestsOf(terms.requester) >= terms.maxWaiting) throw new TooManyWaitingRequestsError(terms.maxWaiting);
        const item: QueueItem = {
          id: this.newId(),
          ...candidate,
          type: itemTypeOf(candidate),
          source: 'request',
          status: 'pending',
          added_at: new Date(now).toISOString(),
          requested_by: terms.requester,
          ...(automatic ? { auto_approved: true } : {}),
        };
        this.queue.insert(item);
        if (automatic) {
          items.push(this.apply(emit, item, 'approved', { by: terms.requester, via: 'auto_approve' }));
        } else {
          items.push(item);
          emit('queue_added', { ...eventDataOf(item), id: item.id });
        }
      });
      return { items, duplicates: skipped.length, skipped };
    });
  }

  /**
   * The requester takes back a request that still waits: it is rejected as cancelled, by them. 404 for an
   * unknown id or another user's request (unless `anyone`: an admin), 409 once it was decided.
   */
  async cancelRequest(id: string, decider: Decider, anyone: boolean): Promise<QueueItem> {
    return this.unitOfWork.mutate((emit) => {
      const item = this.queue.get(id);
      if (!item?.requested_by || (!anyone && item.requested_by !== decider.by)) throw new NotFoundError('request', id);
      if (item.status !== 'pending') throw new ConflictError(`request "${id}" was ${item.status === 'approved' ? 'approved' : 'declined'} already; only a waiting request can be cancelled`, { id, current_status: item.status });
      return this.apply(emit, item, 'rejected', { ...decider, cancelled: true, reason: item.requested_by === decider.by ? CANCELLED_BY_REQUESTER : `cancelled by ${decider.by ?? 'an admin'}` });
    });
  }

  /**
   * The same page as `listPending`, serialised once per committed change: pollers ask for it over and over. Any
   * commit starts afresh (not only the queue's), since the pages carry flags read from the library and the wishlist.
   */
  pendingPage(filter: PendingFilter & { limit: number; offset: number }): SerializedJson {
    const key = `${filter.sort}|${filter.order}|${filter.source ?? ''}|${filter.q ?? ''}|${filter.hide_owned ? 'mine-hidden' : ''}|${filter.offset}|${filter.limit}`;
    return this.pages.page(this.store.commits.committed, key, () => this.listPending(filter));
  }

  /** The sources of pending items, most items first: the queue page's source filter offers them. */
  pendingSources(): PendingSource[] {
    return this.queue.pendingSources();
  }

  /**
   * Items with `status`: pending ones newest first, decided ones newest decision first. Decided ones page by
   * `offset` or by `before`, the opaque cursor a previous page answered with (its `next_before`).
   */
  list(status: QueueStatus, limit: number, offset: number, before?: string): DecidedPage {
    if (before !== undefined && status === 'pending') throw new ValidationError([{ path: '/query/before', message: 'pages only approved or rejected items' }]);
    if (before !== undefined && offset > 0) throw new ValidationError([{ path: '/query/offset', message: 'cannot be combined with before' }]);
    if (status === 'pending') return this.listPending({ sort: 'added_at', order: 'desc', limit, offset });
    const { items, total, nextBefore } = this.queue.decidedPage(status, before === undefined ? { offset } : { before: Number(before) }, limit);
    return { items, total, limit, offset, ...(nextBefore === undefined ? {} : { next_before: String(nextBefore) }) };
  }

  /** A queue item by id, pending or decided. */
  get(id: string): QueueItem {
    const item = this.queue.get(id);
    if (!item) throw new NotFoundError('queue item', id);
    return item;
  }

  /** A queue item by id, or undefined when there is none. */
  find(id: string): QueueItem | undefined {
    return this.queue.get(id);
  }

  /** Bulk decision: items that are not pending are skipped and not counted. */
  async decideMany(selection: Selection, decision: Decision, decider: Decider): Promise<{ count: number; owned: number; wishlistIds: string[] }> {
    const ids = this.select(selection, decision);
    return this.unitOfWork.mutate((emit) => {
      let count = 0;
      let owned = 0;
      const wishlistIds: string[] = [];
      for (const id of ids) {
        const item = this.pendingItem(id);
        if (!item) continue;
        const decided = this.apply(emit, item, decision, decider);
        if (decided.in_library) owned++;
        if (decided.wishlist_id !== undefined) wishlistIds.push(decided.wishlist_id);
        count++;
      }
      return { count, owned, wishlistIds };
    });
  }

  /**
   * Single decision: 404 for an unknown id, 409 when the item was already decided. `guard` runs first in the
   * decision's transaction and throws to refuse it (a decision link marks itself used there, so two clicks at
   * once decide once).
   */
  async decideOne(id: string, decision: Decision, decider: Decider, guard?: () => void): Promise<QueueItem> {
    return this.unitOfWork.mutate((emit) => {
      guard?.();
      const found = this.pendingItem(id);
      if (!found) throw this.notPending(id);
      return this.apply(emit, found, decision, decider);
    });
  }

  /** Puts a rejected item back into the pending queue (it is announced again as `queue_added`). */
  async restore(id: string): Promise<QueueItem> {
    const status = this.queue.statusOf(id);
    if (status === 'pending') throw new ConflictError(`queue item "${id}" is pending; only a rejected item can be restored`, { id, current_status: 'pending' });
    if (status === undefined) throw this.notPending(id, 'rejected');
    if (status !== 'rejected') throw new ConflictError(`queue item "${id}" is ${status}; only a rejected item can be restored`, { id, current_status: status });
    return this.unitOfWork.mutate((emit) => {
      // Checked again inside the transaction: another request may have restored it since (in the same commit even).
      const decided = this.queue.get(id);
      if (decided?.status !== 'rejected') throw new ConflictError(`queue item "${id}" was restored already`, { id, current_status: 'pending' });
      const { decided_at: _at, decided_by: _by, decided_via: _via, in_library: _owned, wishlist_id: _wanted, decline_reason: _reason, cancelled: _cancelled, ...rest } = decided;
      // Marked for good: whoever sees it pending again should know someone said no to it once.
      const restored: QueueItem & { status: 'pending' } = { ...rest, status: 'pending', rejected_before: true };
      this.queue.restore(restored);
      emit('queue_added', { ...eventDataOf(restored), id });
      return restored;
    });
  }

  /**
   * Fills fields a pending item lacks (background enrichment from MusicBrainz). A field already set is never
   * overwritten, and an mbid another known item carries is not taken. Undefined when the item is no longer pending.
   */
  async completePending(id: string, fields: Pick<QueueItem, 'mbid' | 'year' | 'cover_url'>): Promise<QueueItem | undefined> {
    return this.unitOfWork.mutate(() => {
      const found = this.pendingItem(id);
      if (!found) return undefined;
      const takenBy = fields.mbid === undefined ? undefined : this.known.find({ artist: '', mbid: fields.mbid });
      const additions: Partial<QueueItem> = {
        ...(found.mbid === undefined && fields.mbid !== undefined && (takenBy === undefined || takenBy.id === id) ? { mbid: fields.mbid } : {}),
        ...(found.year === undefined && fields.year !== undefined ? { year: fields.year } : {}),
        ...(found.cover_url === undefined && fields.cover_url !== undefined ? { cover_url: fields.cover_url } : {}),
      };
      if (Object.keys(additions).length === 0) return found;
      const completed: QueueItem = { ...found, ...additions };
      this.queue.replacePending(completed);
      return completed;
    });
  }

  /** The pending item with this id, undefined when there is none (or it was decided). */
  pendingItem(id: string): QueueItem | undefined {
    const item = this.queue.get(id);
    return item?.status === 'pending' ? item : undefined;
  }

  /** The next pending item without an mbid after `after`, oldest first: background enrichment's walk. */
  nextWithoutMbid(after: QueuePosition | undefined): QueueItem | undefined {
    return this.queue.nextWithoutMbid(after);
  }

  /** Counts for the dashboard: every pending item, or those of one source (`request`: requests waiting for an admin). */
  pendingCount(source?: string): number {
    return this.queue.count('pending', source);
  }

  private listPending(filter: PendingFilter & { limit: number; offset: number }): Page {
    const { items, total } = this.queue.pendingPage(filter, filter.offset, filter.limit);
    // Flags only for the page's items: index lookups, so a page costs the same at 10,000 pending as at 50.
    return { items: items.map((item) => ({ ...item, ...this.flagger.flagsOf(item) })), total, limit: filter.limit, offset: filter.offset };
  }

  /** Decides `item` (inside a change): an approval of an album nobody has or wants yet puts it on the wishlist. */
  private apply(emit: Emit, item: QueueItem, decision: Decision, decider: Decider): QueueItem {
    const decidedAt = this.timestamp();
    const by = decider.by === undefined ? {} : { decided_by: decider.by };
    const declined = decision === 'rejected' ? { ...(decider.reason === undefined ? {} : { decline_reason: decider.reason }), ...(decider.cancelled ? { cancelled: true } : {}) } : {};
    const decided: QueueItem & { status: Decision } = { ...item, status: decision, decided_at: decidedAt, ...by, decided_via: decider.via, ...declined };
    const event = { ...eventDataOf(item), ...by, decided_via: decider.via, ...(declined.decline_reason === undefined ? {} : { decline_reason: declined.decline_reason }) };
    if (decision === 'approved') {
      // Owned already (the library synced while it waited): approved, but nothing to download.
      if (this.library.owns(item)) decided.in_library = true;
      else {
        // An album added to the wishlist directly while it waited here is already wanted: no second download.
        const wanted = this.wishlist.findWanted(item);
        decided.wishlist_id = wanted ?? this.newId();
        if (wanted === undefined) {
          const requestedBy = item.requested_by === undefined ? {} : { requested_by: item.requested_by };
          this.wishlist.insertWaiting(wishlistItemFrom(item, { id: decided.wishlist_id, added_at: decidedAt, queue_id: item.id, ...requestedBy }));
        }
      }
    }
    this.queue.decide(decided);
    // A chat bot answers "already in your library" from the event alone (CONTRACT §7: queue_approved gains in_library).
    emit(decision === 'approved' ? 'queue_approved' : 'queue_rejected', decision === 'approved' ? { ...event, in_library: decided.in_library === true } : event);
    return decided;
  }

  /** A match that is someone's request names them (the route shows it only to those who may read everything). */
  private withRequester(match: DuplicateOf): DuplicateOf {
    const requestedBy = match.in === 'queue' ? this.queue.get(match.id)?.requested_by : match.in === 'wishlist' ? this.wishlist.get(match.id)?.requested_by : undefined;
    return requestedBy === undefined ? match : { ...match, requested_by: requestedBy };
  }

  private duplicateOf(candidate: Candidate): DuplicateOf | undefined {
    const known = this.known.find(candidate);
    if (known) return known;
    const owned = this.library.find(candidate);
    return owned === undefined ? undefined : { in: 'library', id: owned, status: 'in_library' };
  }

  private checkRoom(adding: number): void {
    // Decided queue items and archived downloads are history: they do not count against storage.max_items.
    const held = this.queue.count('pending') + this.wishlist.count() + this.downloads.liveCount();
    if (held + adding > this.config.storage.max_items) throw new StorageFullError(held, this.config.storage.max_items, adding);
  }

  private notPending(id: string, wanted: QueueStatus = 'pending'): Error {
    const status = this.queue.statusOf(id);
    if (status === undefined) return new NotFoundError('queue item', id);
    // `current_status`, not `status`: that member of a problem is the HTTP status (as `current_state` for downloads).
    return new ConflictError(`queue item "${id}" is already ${status}${wanted === 'pending' ? '' : `, not ${wanted}`}`, { id, current_status: status });
  }

  private select(selection: Selection, decision: Decision): string[] {
    if (selection.all) {
      if (decision === 'rejected') throw new ValidationError([{ path: 'body.all', message: 'rejecting everything at once is not allowed; select ids or mbids' }]);
      return this.queue.pendingIdsOldestFirst();
    }
    const ids = new Set(selection.ids ?? []);
    const mbids = selection.mbids ?? [];
    if (ids.size === 0 && mbids.length === 0) {
      throw new ValidationError([{ path: 'body', message: 'select items with a non-empty "ids" or "mbids" list (or "all": true to approve everything)' }]);
    }
    for (const mbid of mbids) {
      const id = this.queue.findPending({ artist: '', mbid });
      if (id !== undefined) ids.add(id);
    }
    return [...ids];
  }

  private timestamp(): string {
    return new Date(this.clock.now()).toISOString();
  }
}

function nameFields(candidate: Candidate): { album?: string; title?: string } {
  return { ...(candidate.album !== undefined ? { album: candidate.album } : {}), ...(candidate.title !== undefined ? { title: candidate.title } : {}) };
}
