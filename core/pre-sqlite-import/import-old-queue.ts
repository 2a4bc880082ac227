import { join } from 'node:path';
import type { QueueItem } from '../queue/queue-item.schema.js';
import type { QueueTable } from '../queue/queue-table.js';
import type { ImportCounts } from './import-counts.js';
import type { OldCoreData } from './old-core-data.js';
import { DECIDED_HISTORY } from './old-data-files.js';
import { eachLineOf, standingLinesOf, type OldLineFile } from './old-line-file.js';
import { checkedRecord } from './old-records.js';
import { PreSqliteImportError } from './pre-sqlite-import-error.js';

/**
 * The queue (inside the import's change): pending items in the order the document held them, then the decisions
 * in the order they were made, numbered as the table numbers new ones: those of `queue-history.jsonl` in line order
 * (`D <TAB> id <TAB> status <TAB> mbid <TAB> name key <TAB> record`; the last decision of an id stands, a restore line
 * `R` withdraws it), then those earlier versions kept in the document, by decision time. The file is read twice,
 * once for which line stands per id and once for the records, so only ids are held in memory.
 */
export function importOldQueue(dir: string, core: OldCoreData, queue: QueueTable, counts: ImportCounts, notice: (message: string) => void): void {
  const pendingIds = new Set<string>();
  for (const item of core.pending) {
    queue.insert(item);
    pendingIds.add(item.id);
    counts.pending++;
  }
  const file: OldLineFile = { path: join(dir, DECIDED_HISTORY), acknowledged: core.historyBytes, keyFields: 5, adds: 'D', removes: 'R' };
  const standing = standingLinesOf(file);
  // Decided again by an earlier version's document after the history (it moved them there at its next start).
  for (const item of core.decided) standing.delete(item.id);
  const decide = (item: QueueItem & { status: 'approved' | 'rejected' }) => {
    if (pendingIds.has(item.id)) {
      // Never written so by the old engine (a restore withdrew the decision in the commit that made the item pending).
      notice(`queue item "${item.id}" is both pending and decided; it stays pending`);
      return;
    }
    queue.insert({ ...item, status: 'pending' });
    queue.decide(item);
    counts[item.status]++;
  };
  eachLineOf(file, (line) => {
    if (standing.get(line.fields[1] as string) !== line.number) return;
    const item = checkedRecord('queue item', line.record(), file.path, `line ${line.number}`);
    if (item.status !== line.fields[2] || item.status === 'pending' || item.id !== line.fields[1]) {
      throw new PreSqliteImportError(file.path, `line ${line.number}`, 'its record is not the decision its key fields name');
    }
    decide(item as QueueItem & { status: 'approved' | 'rejected' });
  });
  for (const item of core.decided) decide(item);
}
