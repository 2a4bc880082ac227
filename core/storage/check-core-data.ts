import { CORE_COLLECTIONS, type CoreData } from './core-data.js';
import { DamagedDataError } from './damaged-data-error.js';

const RECOVERY = 'restore the data dir from a backup, or fix or remove that record by hand while the service is stopped';
const RECORDS_WITH_IDS = new Set(['queue', 'wishlist', 'downloads', 'jobs']);

/**
 * Checks the shape of the core document before anything uses it, so damaged data stops start-up with the file
 * and the record at fault, instead of a crash in the middle of a request or, worse, a start that looks empty and
 * overwrites what is left at the next write. Cheap: a few property reads per record.
 */
export function checkCoreData(data: CoreData, file: string): void {
  const fields: Record<string, unknown> = { ...data };
  for (const field of CORE_COLLECTIONS) {
    const collection = fields[field];
    if (typeof collection !== 'object' || collection === null || Array.isArray(collection)) {
      throw new DamagedDataError(file, `"${field}" is not a collection of records`, RECOVERY);
    }
    for (const [key, record] of Object.entries(collection)) {
      if (typeof record !== 'object' || record === null || Array.isArray(record)) {
        throw new DamagedDataError(file, `${field} record "${key}" is not an object`, RECOVERY);
      }
      if (RECORDS_WITH_IDS.has(field) && Reflect.get(record, 'id') !== key) {
        throw new DamagedDataError(file, `${field} record "${key}" does not carry its own id`, RECOVERY);
      }
    }
  }
  // archive_bytes and waiting_bytes are missing from the documents of versions before those files (they count as 0).
  for (const [field, optional] of [['history_bytes', false], ['archive_bytes', true], ['waiting_bytes', true]] as const) {
    const bytes = fields[field];
    if (optional && bytes === undefined) continue;
    if (typeof bytes !== 'number' || !Number.isSafeInteger(bytes) || bytes < 0) {
      throw new DamagedDataError(file, `"${field}" is not a byte count`, RECOVERY);
    }
  }
}
