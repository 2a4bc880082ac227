import { inject, injectable } from 'tsyringe';
import type { Clock, Identity } from '@crateflow/sdk';
import { Tokens } from '../di/tokens.js';
import { ConflictError } from '../errors/conflict-error.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { ValidationError } from '../errors/validation-error.js';
import { LibraryCatalog } from '../library/library-catalog.js';
import { CoreStore, type Emit } from '../storage/core-store.js';
import type { CoreData } from '../storage/core-data.js';
import { itemTypeOf, wishlistItemFrom } from '../wishlist/wishlist-item-from.js';
import { KnownAlbums } from './known-albums.js';
import { SerializedJson } from '../http/serialized-json.js';
import { PendingView, viewKey, type PendingFilter } from './pending-view.js';
import type { Candidate, QueueItem } from './queue-item.schema.js';
import { SerializedPageCache } from './serialized-page-cache.js';

export interface Selection {
  ids?: string[];
  mbids?: string[];
  all?: boolean;
}

export type Decision = 'approved' | 'rejected';

/**
 * The pending queue: candidates come in (de-duplicated against the queue, the wishlist and the library), and a
 * person approves them onto the wishlist or rejects them. Every change is committed before its event fires.
 */
@injectable()
export class QueueService {
  private readonly pending: PendingView;
  private readonly pages = new SerializedPageCache();

  constructor(
    @inject(CoreStore) private readonly store: CoreStore,
    @inject(KnownAlbums) private readonly known: KnownAlbums,
    @inject(LibraryCatalog) private readonly library: LibraryCatalog,
    @inject(Tokens.Clock) private readonly clock: Clock,
    @inject(Tokens.NewId) private readonly newId: () => string,
  ) {
    this.pending = new PendingView(() => Object.values(this.store.data.queue));
  }

  async add(candidates: readonly Candidate[]): Promise<{ items: QueueItem[]; duplicates: number }> {
    const result = await this.store.mutate((data, emit) => {
      const added: QueueItem[] = [];
      let duplicates = 0;
      const now = this.timestamp();
      for (const candidate of candidates) {
        if (this.known.find(candidate) || this.library.owns(candidate)) {
          duplicates++;
          continue;
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
        this.known.addQueued(item);
        added.push(item);
        emit('queue_added', { artist: item.artist, album: item.album, mbid: item.mbid, id: item.id });
      }
      return { items: added, duplicates };
    });
    if (result.items.length > 0) this.pending.invalidate();
    return result;
  }

  private listPending(filter: PendingFilter & { limit: number; offset: number }): { items: QueueItem[]; total: number; limit: number; offset: number } {
    const all = this.pending.list(filter);
    return { items: all.slice(filter.offset, filter.offset + filter.limit), total: all.length, limit: filter.limit, offset: filter.offset };
  }

  /** The same page as `listPending`, serialised once per change of the queue: pollers ask for it over and over. */
  pendingPage(filter: PendingFilter & { limit: number; offset: number }): SerializedJson {
    const key = `${viewKey(filter)}|${filter.offset}|${filter.limit}`;
    return this.pages.page(this.pending.generation, key, () => this.listPending(filter));
  }

  get(id: string): QueueItem {
    const item = this.store.data.queue[id];
    if (!item) throw new NotFoundError('queue item', id);
    return item;
  }

  /** Bulk decision: items that are not pending are skipped and not counted. */
  async decideMany(selection: Selection, decision: Decision, identity: Identity | null): Promise<number> {
    const ids = this.select(selection, decision);
    const count = await this.store.mutate((data, emit) => {
      let decided = 0;
      for (const id of ids) {
        const item = data.queue[id];
        if (item?.status === 'pending') {
          this.apply(data, emit, item, decision, identity);
          decided++;
        }
      }
      return decided;
    });
    if (count > 0) this.pending.remove(ids);
    return count;
  }

  /** Single decision: 404 for an unknown id, 409 when the item was already decided. */
  async decideOne(id: string, decision: Decision, identity: Identity | null): Promise<QueueItem> {
    const item = await this.store.mutate((data, emit) => {
      const found = data.queue[id];
      if (!found) throw new NotFoundError('queue item', id);
      if (found.status !== 'pending') {
        // `current_status`, not `status`: that member of a problem is the HTTP status (as `current_state` for downloads).
        throw new ConflictError(`queue item "${id}" is already ${found.status}`, { id, current_status: found.status });
      }
      this.apply(data, emit, found, decision, identity);
      return found;
    });
    this.pending.remove([id]);
    return item;
  }

  /** Counts for the dashboard. */
  pendingCount(): number {
    return this.pending.list({ sort: 'added_at', order: 'desc' }).length;
  }

  private apply(data: CoreData, emit: Emit, item: QueueItem, decision: Decision, identity: Identity | null): void {
    item.status = decision;
    const decidedAt = this.timestamp();
    item.decided_at = decidedAt;
    if (identity) item.decided_by = identity.name;
    const event = { artist: item.artist, album: item.album, mbid: item.mbid };
    if (decision === 'rejected') {
      emit('queue_rejected', event);
      return;
    }
    // An album added to the wishlist directly while it waited here is already wanted: no second download.
    if (this.known.findWanted(item) === undefined) {
      const wanted = wishlistItemFrom(item, { id: this.newId(), added_at: decidedAt, queue_id: item.id });
      data.wishlist[wanted.id] = wanted;
      this.known.addWanted(wanted);
    }
    emit('queue_approved', event);
  }

  private select(selection: Selection, decision: Decision): string[] {
    if (selection.all) {
      if (decision === 'rejected') throw new ValidationError([{ path: 'body.all', message: 'rejecting everything at once is not allowed; select ids or mbids' }]);
      return this.pending.list({ sort: 'added_at', order: 'asc' }).map((item) => item.id);
    }
    const ids = new Set(selection.ids ?? []);
    const mbids = new Set((selection.mbids ?? []).map((m) => m.toLowerCase()));
    if (ids.size === 0 && mbids.size === 0) {
      throw new ValidationError([{ path: 'body', message: 'select items with a non-empty "ids" or "mbids" list (or "all": true to approve everything)' }]);
    }
    const chosen = [...ids];
    if (mbids.size > 0) {
      for (const item of Object.values(this.store.data.queue)) {
        if (item.status === 'pending' && item.mbid && mbids.has(item.mbid.toLowerCase())) chosen.push(item.id);
      }
    }
    return [...new Set(chosen)];
  }

  private timestamp(): string {
    return new Date(this.clock.now()).toISOString();
  }
}
