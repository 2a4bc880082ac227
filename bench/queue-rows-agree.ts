import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { QueueItem } from '../core/queue/queue-item.schema.js';
import { QueueTable } from '../core/queue/queue-table.js';
import { Store } from '../core/storage/store.js';

const COLUMNS = ['id', 'status', 'source', 'added_at', 'score', 'year', 'name_sort', 'search_text', 'mbid', 'name_key', 'record'] as const;

/**
 * Throws unless the queue rows the bench wrote itself (fill-queue.ts) hold what QueueTable writes for the same
 * items: `sample` is written through the table into a scratch store (added, then decided as it was) and every column
 * compared but the numbering. Should the table derive a column differently one day, the bench says so instead of
 * measuring rows the service would never have written.
 */
export async function checkQueueRowsAgree(filled: Store, sample: readonly QueueItem[]): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-bench-rows-'));
  const scratch = await Store.open(dir);
  try {
    const table = new QueueTable(scratch);
    await scratch.change(() => {
      for (const item of sample) {
        table.insert({ ...item, status: 'pending' });
        if (item.status !== 'pending') table.decide({ ...item, status: item.status });
      }
    });
    const select = `SELECT ${COLUMNS.join(', ')} FROM queue_items WHERE id = ?`;
    for (const item of sample) {
      const expected = scratch.db.prepare(select).get(item.id) as Record<string, unknown>;
      const stored = filled.db.prepare(select).get(item.id) as Record<string, unknown> | undefined;
      if (!stored) throw new Error(`the bench's fill did not store queue item ${item.id}`);
      for (const column of COLUMNS) {
        if (stored[column] !== expected[column]) {
          throw new Error(`bench/fill-queue.ts wrote queue_items.${column} = ${JSON.stringify(stored[column])} for ${item.id}; QueueTable writes ${JSON.stringify(expected[column])}: update queueRowOf`);
        }
      }
    }
  } finally {
    await scratch.close();
    await rm(dir, { recursive: true, force: true });
  }
}
