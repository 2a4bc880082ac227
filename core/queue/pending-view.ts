import { normalizeName } from '@crateflow/sdk';
import type { QueueItem } from './queue-item.schema.js';
import { byCodeUnits } from '../sorting/code-unit-order.js';

export type PendingSort = 'added_at' | 'score' | 'artist' | 'year';
export type SortOrder = 'asc' | 'desc';
export interface PendingFilter {
  sort: PendingSort;
  order: SortOrder;
  source?: string;
  q?: string;
  /** Leave out albums the person has or wants already (in the library, or on the wishlist). */
  hide_owned?: boolean;
}

/** Says whether an item's album is owned; `stamp` changes whenever an answer may have changed. */
export interface OwnedCheck {
  owned(item: QueueItem): boolean;
  readonly stamp: string;
}

const MAX_CACHED_VIEWS = 32;

/**
 * Sorted, filtered lists of pending queue items, computed once per change of the queue and reused by every
 * page request until the next change, so paging through 10,000 items does not sort them on every request.
 */
export class PendingView {
  private version = 0;
  private changes = 0;
  private cachedVersion = -1;
  private readonly cache = new Map<string, QueueItem[]>();
  private searchText = new WeakMap<QueueItem, string>();

  constructor(
    private readonly items: () => Iterable<QueueItem>,
    private readonly ownership: OwnedCheck = { owned: () => false, stamp: '' },
  ) {}

  /** Items decided since the views were computed; dropped from them at the next read. */
  private readonly decided = new Set<string>();

  /** Call after items were added: every view is computed again at the next read. */
  invalidate(): void {
    this.version++;
    this.changes++;
  }

  /** Grows with every change of the pending items: whatever was read from the views before is out of date. */
  get generation(): number {
    return this.changes;
  }

  /**
   * Call after items stopped being pending. The cached views stay valid without them, so the next read only
   * filters them out instead of sorting everything again (approvals come in bursts; reads in between are few).
   */
  remove(ids: Iterable<string>): void {
    for (const id of ids) this.decided.add(id);
    this.changes++;
  }

  list(filter: PendingFilter): readonly QueueItem[] {
    if (this.cachedVersion !== this.version) {
      this.cache.clear();
      this.cachedVersion = this.version;
      this.decided.clear();
    } else if (this.decided.size > 0) {
      for (const [key, view] of this.cache) this.cache.set(key, view.filter((item) => !this.decided.has(item.id)));
      this.decided.clear();
    }
    // A view without owned albums is named with the ownership stamp too: a library sync makes it stale.
    const key = filter.hide_owned ? `${viewKey(filter)}|${this.ownership.stamp}` : viewKey(filter);
    let view = this.cache.get(key);
    if (!view) {
      view = this.compute(filter);
      if (this.cache.size >= MAX_CACHED_VIEWS) this.cache.clear();
      this.cache.set(key, view);
    }
    return view;
  }

  private compute(filter: PendingFilter): QueueItem[] {
    const terms = filter.q ? normalizeName(filter.q).split(' ').filter(Boolean) : [];
    const matches: QueueItem[] = [];
    for (const item of this.items()) {
      if (item.status !== 'pending') continue;
      if (filter.source !== undefined && item.source !== filter.source) continue;
      if (filter.hide_owned && this.ownership.owned(item)) continue;
      if (terms.length > 0) {
        const text = this.textOf(item);
        if (!terms.every((t) => text.includes(` ${t}`))) continue; // word prefixes: "low" finds Low, not Slowdive
      }
      matches.push(item);
    }
    const direction = filter.order === 'asc' ? 1 : -1;
    const compare = comparator(filter.sort);
    // Ties break on id (time-ordered), so pages are stable.
    return matches.sort((a, b) => direction * (compare(a, b) || byCodeUnits(a.id, b.id)));
  }

  private textOf(item: QueueItem): string {
    let text = this.searchText.get(item);
    if (text === undefined) {
      text = ` ${normalizeName([item.artist, item.album ?? '', item.title ?? '', item.source].join(' '))} `;
      this.searchText.set(item, text);
    }
    return text;
  }
}

/** Names a view: two filters with the same key list the same items in the same order. */
export function viewKey(filter: PendingFilter): string {
  return `${filter.sort}|${filter.order}|${filter.source ?? ''}|${filter.q ?? ''}|${filter.hide_owned ? 'mine-hidden' : ''}`;
}

// One collator for every comparison: localeCompare with options builds one per call, which made sorting 10,000
// pending items by artist take a quarter of a second. It is made on first use: it pages ICU's collation data in
// (about 3 MB resident), which a service nobody sorts by artist does not need.
let collator: Intl.Collator | undefined;
function byName(a: string, b: string): number {
  collator ??= new Intl.Collator(undefined, { sensitivity: 'base' });
  return collator.compare(a, b);
}

function comparator(sort: PendingSort): (a: QueueItem, b: QueueItem) => number {
  switch (sort) {
    case 'added_at':
      return (a, b) => byCodeUnits(a.added_at, b.added_at);
    case 'score':
      return (a, b) => (a.score ?? -Infinity) - (b.score ?? -Infinity) || 0;
    case 'artist':
      return (a, b) => byName(a.artist, b.artist) || byName(a.album ?? '', b.album ?? '');
    case 'year':
      return (a, b) => (a.year ?? 0) - (b.year ?? 0);
  }
}
