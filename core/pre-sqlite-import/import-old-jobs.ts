import type { Database } from 'better-sqlite3';
import type { JobsTable } from '../jobs/jobs-table.js';
import type { ImportCounts } from './import-counts.js';
import type { OldCoreData } from './old-core-data.js';
import { recordArchiveOf } from './import-old-downloads.js';
import { eachLineOf } from './old-line-file.js';
import { checkedRecord } from './old-records.js';
import { PreSqliteImportError } from './pre-sqlite-import-error.js';

/**
 * Jobs (inside the import's change): the archived ones in the order they were archived, then those of the document
 * in the order they started, each added as the job log adds a job. The table archives the finished jobs of a kind
 * and source beyond the newest 100 as each is added, the rule the old engine archived them by, so the ones the
 * archive file held end archived again, in the same order, and the document's stay listed first. A job still
 * `running` is imported as it is: the job log fails the jobs a stopped process left running at every start.
 */
export function importOldJobs(dir: string, core: OldCoreData, jobs: JobsTable, db: Database, counts: ImportCounts, notice: (message: string) => void): void {
  const seen = new Set<string>();
  const file = recordArchiveOf(dir, core);
  eachLineOf(file, (line) => {
    if (line.fields[0] !== 'jobs') return;
    const job = checkedRecord('job', line.record(), file.path, `line ${line.number}`);
    if (job.id !== line.fields[1] || job.status === 'running') throw new PreSqliteImportError(file.path, `line ${line.number}`, 'its record is not a finished job of that id');
    if (seen.has(job.id)) return notice(`job "${job.id}" is archived twice; the first stands`);
    seen.add(job.id);
    jobs.insert(job);
  });
  for (const job of core.jobs) {
    if (seen.has(job.id)) {
      notice(`job "${job.id}" is both archived and in the document; the archived one stands`);
      continue;
    }
    seen.add(job.id);
    jobs.insert(job);
  }
  const archived = Number(db.prepare('SELECT count(*) FROM jobs WHERE archived_seq IS NOT NULL').pluck().get());
  counts.archived_jobs = archived;
  counts.jobs = seen.size - archived;
}
