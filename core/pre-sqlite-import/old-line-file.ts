import { statSync } from 'node:fs';
import { eachOldLine } from './old-lines.js';
import { PreSqliteImportError } from './pre-sqlite-import-error.js';

/**
 * The layout of one of the old engine's append-only files (`queue-history.jsonl`, `wishlist-waiting.jsonl`,
 * `archive.jsonl`): each line is `keyFields` tab-separated fields, then the record as JSON. Only the first
 * `acknowledged` bytes count (the length the core document recorded with the commit that wrote them): bytes past it
 * were never acknowledged, and are left out.
 *
 * Where a file records an item more than once (decided again, put on the waiting list again), the last `adds` line
 * of an id stands, and a `removes` line withdraws it.
 */
export interface OldLineFile {
  path: string;
  acknowledged: number;
  keyFields: number;
  adds?: string;
  removes?: string;
}

/** One line: its key fields, and its record (parsed on demand: a superseded line's record is never needed). */
export interface OldLine {
  number: number;
  fields: string[];
  record(): Record<string, unknown>;
}

/** Every line of the file within its acknowledged length, in order. */
export function eachLineOf(file: OldLineFile, visit: (line: OldLine) => void): void {
  const size = sizeOf(file.path);
  if (size < file.acknowledged) throw new PreSqliteImportError(file.path, 'the whole file', `holds ${size} bytes but ${file.acknowledged} were acknowledged (the file was cut or replaced)`);
  const { tornBytes } = eachOldLine(file.path, (text, number) => visit(lineOf(file, text, number)), file.acknowledged);
  if (tornBytes > 0) throw new PreSqliteImportError(file.path, `line after byte ${file.acknowledged - tornBytes}`, 'cut short within the acknowledged length (the file is damaged)');
}

/** Which line stands for each id (`adds` lines not withdrawn by a later `removes` or superseded by a later `adds`). */
export function standingLinesOf(file: OldLineFile): Map<string, number> {
  const standing = new Map<string, number>();
  eachLineOf(file, ({ number, fields }) => {
    const [kind, id] = fields as [string, string];
    if (!id) throw new PreSqliteImportError(file.path, `line ${number}`, 'has no id');
    // Deleted first so the map's order is that of the standing lines.
    standing.delete(id);
    if (kind === file.adds) standing.set(id, number);
    else if (kind !== file.removes) throw new PreSqliteImportError(file.path, `line ${number}`, `starts with "${kind.slice(0, 20)}", not ${file.adds} or ${file.removes}`);
  });
  return standing;
}

function lineOf(file: OldLineFile, text: string, number: number): OldLine {
  const fields: string[] = [];
  let start = 0;
  while (fields.length < file.keyFields) {
    const tab = text.indexOf('\t', start);
    if (tab === -1) throw new PreSqliteImportError(file.path, `line ${number}`, `has fewer than ${file.keyFields} fields before its record`);
    fields.push(text.slice(start, tab));
    start = tab + 1;
  }
  const json = start;
  return {
    number,
    fields,
    record: () => {
      let record: unknown;
      try {
        record = JSON.parse(text.slice(json));
      } catch (err: unknown) {
        throw new PreSqliteImportError(file.path, `line ${number}`, 'its record is not valid JSON', { cause: err });
      }
      if (typeof record !== 'object' || record === null || Array.isArray(record)) throw new PreSqliteImportError(file.path, `line ${number}`, 'its record is not an object');
      return record as Record<string, unknown>;
    },
  };
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch (err: unknown) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
}
