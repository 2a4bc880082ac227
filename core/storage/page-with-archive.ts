import type { ArchiveFilters, ArchivedCollection, RecordArchive } from './record-archive.js';

export interface RecordPage<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}

/**
 * A page over the records still in the core document (`live`, already filtered and newest first) followed by
 * those moved to the archive (most recently archived first): what `GET /downloads` and `GET /jobs` list. Only the
 * archived records the page shows are read from disk.
 */
export async function pageWithArchive<T>(
  live: readonly T[],
  archive: Pick<RecordArchive, 'page' | 'count'>,
  where: { collection: ArchivedCollection; filters: ArchiveFilters; isRecord: (value: unknown) => value is T },
  page: { offset: number; limit: number },
): Promise<RecordPage<T>> {
  const items = live.slice(page.offset, page.offset + page.limit);
  if (items.length < page.limit) {
    const archived = await archive.page(where.collection, where.filters, Math.max(0, page.offset - live.length), page.limit - items.length, where.isRecord);
    items.push(...archived);
  }
  return { items, total: live.length + archive.count(where.collection, where.filters), limit: page.limit, offset: page.offset };
}
