import { inject, injectable } from 'tsyringe';
import type { Clock, Identity } from '@crateflow/sdk';
import type { AppConfig } from '../config/app-config.schema.js';
import { Tokens } from '../di/tokens.js';
import { ConflictError } from '../errors/conflict-error.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { StorageFullError } from '../errors/storage-full-error.js';
import { ValidationError } from '../errors/validation-error.js';
import { LibraryCatalog } from '../library/library-catalog.js';
import { CoreStore, type Emit, type MutationTools } from '../storage/core-store.js';
import type { CoreData } from '../storage/core-data.js';
import { itemTypeOf, wishlistItemFrom } from '../wishlist/wishlist-item-from.js';
import { eventDataOf } from '../events/event-data-of.js';
import { KnownAlbums } from './known-albums.js';
import { SerializedJson } from '../http/serialized-json.js';
import { PendingView, viewKey, type PendingFilter } from './pending-view.js';
import type { Candidate, DuplicateOf, QueueItem, QueueStatus } from './queue-item.schema.js';
import { SerializedPageCache } from './serialized-page-cache.js';
import { QueueItemFlagger } from './queue-item-flags.js';
import type { DecidedStatus } from './decided-history.js';

export interface Selection {
  ids?: string[];
  mbids?: string[];
  all?: boolean;
}

export type Decision = DecidedStatus;

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

/**
 * The pending queue: candidates come in (de-duplicated against the queue, its decided history, the wishlist and
 * the library), and a person approves them onto the wishlist or rejects them. Decided items move to the decided
 * history on disk; a rejected one can be restored. Every change is committed before its event fires.
 */
@injectable()
export class QueueService {
  private readonly pending: PendingView;
  private readonly pages = new SerializedPageCache();
  private readonly flagger: QueueItemFlagger;
  private sourcesOf: { generation: number; sources: PendingSource[] } | undefined;

  constructor(
    @inject(CoreStore) private readonly store: CoreStore,
    @inject(KnownAlbums) private readonly known: KnownAlbums,
    @inject(LibraryCatalog) private readonly library: LibraryCatalog,
    @inject(Tokens.Config) private readonly config: AppConfig,
    @inject(Tokens.Clock) private readonly clock: Clock,
    @inject(Tokens.NewId) private readonly newId: () => string,
  ) {
    this.flagger = new QueueItemFlagger(known, library, store);
    this.pending = new PendingView(() => Object.values(this.store.data.queue), this.flagger);
    store.onRollback(() => this.pending.invalidate());
  }

  async add(candidates: readonly Candidate[]): Promise<AddResult> {
    this.checkRoom(candidates.length);
    // The library is read before the mutation (its albums are on disk); a sync in between changes only which
    // candidates count as owned, as a sync a moment later would.
    const owned = await Promise.all(candidates.map((candidate) => this.library.find(candidate)));
    const result = await this.store.mutate((data, emit) => {
      const added: QueueItem[] = [];
      const skipped: AddResult['skipped'] = [];
      const now = this.timestamp();
      candidates.forEach((candidate, index) => {
        const duplicateOf = this.duplicateOf(candidate, owned[index]);
        if (duplicateOf) {
          skipped.push({ index, artist: candidate.artist, ...nameFields(candidate), duplicate_of: duplicateOf });
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
        data.queue[item.id] = item;
        this.known.addPending(item);
        added.push(item);
        emit('queue_added', { ...eventDataOf(item), id: item.id });
      });
      return { items: added, duplicates: skipped.length, skipped };
    });
    if (result.items.length > 0) this.pending.invalidate();
    return result;
  }

  /** The same page as `listPending`, serialised once per change of the queue: pollers ask for it over and over. */
  pendingPage(filter: PendingFilter & { limit: number; offset: number }): SerializedJson {
    const key = `${viewKey(filter)}|${filter.offset}|${filter.limit}`;
    // Pages carry flags read from the library, wishlist and history indexes: a change of any of them is a new generation.
    return this.pages.page(`${this.pending.generation}|${this.flagger.stamp}`, key, () => this.listPending(filter));
  }

  /** The sources of pending items, most items first: the queue page's source filter offers them. */
  pendingSources(): PendingSource[] {
    const generation = this.pending.generation;
    if (this.sourcesOf?.generation === generation) return this.sourcesOf.sources;
    const counts = new Map<string, number>();
    for (const item of this.pending.list({ sort: 'added_at', order: 'desc' })) counts.set(item.source, (counts.get(item.source) ?? 0) + 1);
    const sources = [...counts].map(([name, pending]) => ({ name, pending })).sort((a, b) => b.pending - a.pending || a.name.localeCompare(b.name));
    this.sourcesOf = { generation, sources };
    return sources;
  }

  /** Items with `status`: pending ones newest first, decided ones newest decision first (read from disk). */
  async list(status: QueueStatus, limit: number, offset: number): Promise<Page> {
    if (status === 'pending') return this.listPending({ sort: 'added_at', order: 'desc', limit, offset });
    const { items, total } = await this.store.history.page(status, offset, limit);
    return { items, total, limit, offset };
  }

  /** A queue item by id, pending or decided. */
  async get(id: string): Promise<QueueItem> {
    const item = this.store.data.queue[id] ?? (await this.store.history.get(id));
    if (!item) throw new NotFoundError('queue item', id);
    return item;
  }

  /** Bulk decision: items that are not pending are skipped and not counted. */
  async decideMany(selection: Selection, decision: Decision, identity: Identity | null): Promise<{ count: number; owned: number; wishlistIds: string[] }> {
    const ids = this.select(selection, decision);
    const result = await this.store.mutate((data, emit, tools) => {
      let count = 0;
      let owned = 0;
      const wishlistIds: string[] = [];
      for (const id of ids) {
        const item = data.queue[id];
        if (!item) continue;
        const decided = this.apply(data, emit, tools, item, decision, identity);
        if (decided.in_library) owned++;
        if (decided.wishlist_id !== undefined) wishlistIds.push(decided.wishlist_id);
        count++;
      }
      return { count, owned, wishlistIds };
    });
    if (result.count > 0) this.pending.remove(ids);
    return result;
  }

  /** Single decision: 404 for an unknown id, 409 when the item was already decided. */
  async decideOne(id: string, decision: Decision, identity: Identity | null): Promise<QueueItem> {
    const item = await this.store.mutate((data, emit, tools) => {
      const found = data.queue[id];
      if (!found) throw this.notPending(id);
      return this.apply(data, emit, tools, found, decision, identity);
    });
    this.pending.remove([id]);
    return item;
  }

  /** Puts a rejected item back into the pending queue (it is announced again as `queue_added`). */
  async restore(id: string): Promise<QueueItem> {
    if (this.store.data.queue[id]) throw new ConflictError(`queue item "${id}" is pending; only a rejected item can be restored`, { id, current_status: 'pending' });
    const status = this.store.history.statusOf(id);
    if (status === undefined) throw this.notPending(id, 'rejected');
    if (status !== 'rejected') throw new ConflictError(`queue item "${id}" is ${status}; only a rejected item can be restored`, { id, current_status: status });
    const decided = await this.store.history.get(id);
    if (!decided) throw new NotFoundError('queue item', id);
    const item = await this.store.mutate((data, emit, { history }) => {
      // Checked again inside the mutation: another request may have restored it while the record was read.
      if (this.store.history.statusOf(id) !== 'rejected') throw new ConflictError(`queue item "${id}" was restored already`, { id, current_status: 'pending' });
      const { decided_at: _at, decided_by: _by, in_library: _owned, wishlist_id: _wanted, ...rest } = decided;
      // Marked for good: whoever sees it pending again should know someone said no to it once.
      const restored: QueueItem = { ...rest, status: 'pending', rejected_before: true };
      history.stageRestored(restored);
      data.queue[id] = restored;
      this.known.addPending(restored);
      emit('queue_added', { ...eventDataOf(restored), id });
      return restored;
    });
    this.pending.invalidate();
    return item;
  }

  /**
   * Fills fields a pending item lacks (background enrichment from MusicBrainz). A field already set is never
   * overwritten, and an mbid another known item carries is not taken. Undefined when the item is no longer pending.
   */
  async completePending(id: string, fields: Pick<QueueItem, 'mbid' | 'year' | 'cover_url'>): Promise<QueueItem | undefined> {
    const item = await this.store.mutate((data) => {
      const found = data.queue[id];
      if (!found) return undefined;
      const takenBy = fields.mbid === undefined ? undefined : this.known.find({ artist: '', mbid: fields.mbid });
      const additions: Partial<QueueItem> = {
        ...(found.mbid === undefined && fields.mbid !== undefined && (takenBy === undefined || takenBy.id === id) ? { mbid: fields.mbid } : {}),
        ...(found.year === undefined && fields.year !== undefined ? { year: fields.year } : {}),
        ...(found.cover_url === undefined && fields.cover_url !== undefined ? { cover_url: fields.cover_url } : {}),
      };
      if (Object.keys(additions).length === 0) return found;
      const completed: QueueItem = { ...found, ...additions };
      this.known.removePending(found);
      data.queue[id] = completed;
      this.known.addPending(completed);
      return completed;
    });
    if (item) this.pending.invalidate();
    return item;
  }

  /** Counts for the dashboard. */
  pendingCount(): number {
    return this.store.size('queue'); // the queue holds only pending items: decided ones are in the history
  }

  private listPending(filter: PendingFilter & { limit: number; offset: number }): Page {
    const all = this.pending.list(filter);
    // Flags only for the page's items: index lookups, so a page costs the same at 10,000 pending as at 50.
    const items = all.slice(filter.offset, filter.offset + filter.limit).map((item) => ({ ...item, ...this.flagger.flagsOf(item) }));
    return { items, total: all.length, limit: filter.limit, offset: filter.offset };
  }

  private apply(data: CoreData, emit: Emit, { history, waiting }: MutationTools, item: QueueItem, decision: Decision, identity: Identity | null): QueueItem {
    const decidedAt = this.timestamp();
    const decided: QueueItem & { status: Decision } = { ...item, status: decision, decided_at: decidedAt, ...(identity ? { decided_by: identity.name } : {}) };
    const event = eventDataOf(item);
    if (decision === 'approved') {
      // Owned already (the library synced while it waited): approved, but nothing to download.
      if (this.library.owns(item)) decided.in_library = true;
      else {
        // An album added to the wishlist directly while it waited here is already wanted: no second download.
        const wanted = this.known.findWanted(item);
        decided.wishlist_id = wanted ?? this.newId();
        if (wanted === undefined) waiting.stageWaiting(wishlistItemFrom(item, { id: decided.wishlist_id, added_at: decidedAt, queue_id: item.id }));
      }
    }
    delete data.queue[item.id];
    this.known.removePending(item);
    history.stageDecided(decided);
    // A chat bot answers "already in your library" from the event alone (CONTRACT §7: queue_approved gains in_library).
    emit(decision === 'approved' ? 'queue_approved' : 'queue_rejected', decision === 'approved' ? { ...event, in_library: decided.in_library === true } : event);
    return decided;
  }

  private duplicateOf(candidate: Candidate, owned: string | undefined): DuplicateOf | undefined {
    const known = this.known.find(candidate);
    if (known) return known;
    return owned === undefined ? undefined : { in: 'library', id: owned, status: 'in_library' };
  }

  private checkRoom(adding: number): void {
    const held = this.store.size('queue') + this.store.size('wishlist') + this.store.waiting.count + this.store.size('downloads');
    if (held + adding > this.config.storage.max_items) throw new StorageFullError(held, this.config.storage.max_items, adding);
  }

  private notPending(id: string, wanted: QueueStatus = 'pending'): Error {
    const status = this.store.history.statusOf(id);
    if (status === undefined) return new NotFoundError('queue item', id);
    // `current_status`, not `status`: that member of a problem is the HTTP status (as `current_state` for downloads).
    return new ConflictError(`queue item "${id}" is already ${status}${wanted === 'pending' ? '' : `, not ${wanted}`}`, { id, current_status: status });
  }

  private select(selection: Selection, decision: Decision): string[] {
    if (selection.all) {
      if (decision === 'rejected') throw new ValidationError([{ path: 'body.all', message: 'rejecting everything at once is not allowed; select ids or mbids' }]);
      return this.pending.list({ sort: 'added_at', order: 'asc' }).map((item) => item.id);
    }
    const ids = new Set(selection.ids ?? []);
    const mbids = selection.mbids ?? [];
    if (ids.size === 0 && mbids.length === 0) {
      throw new ValidationError([{ path: 'body', message: 'select items with a non-empty "ids" or "mbids" list (or "all": true to approve everything)' }]);
    }
    for (const mbid of mbids) {
      const id = this.known.findPending({ artist: '', mbid }); // an index lookup, not a scan of the queue
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
