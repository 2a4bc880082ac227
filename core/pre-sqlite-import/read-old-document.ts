import { readFileSync } from 'node:fs';
import { eachOldLine } from './old-lines.js';
import { PreSqliteImportError } from './pre-sqlite-import-error.js';

/** A document as the old engine held it in memory: top-level fields, the keyed collections as objects. */
export type OldDocument = Record<string, unknown>;

const SNAPSHOT_HEADER = '{"crateflow_snapshot":2}';

/**
 * Reads one document of the old engine (`<name>.json` plus `<name>.json.changes`), read-only, as the old engine
 * loaded it: the snapshot (a header line then `["put", field, value]` and `["rec", field, key, value]` lines, or,
 * before that format, one JSON object), then every change set of the log replayed on top, in order. A torn last line
 * of the log (a crash in the middle of an append, never acknowledged) is left out, as the old engine did. Undefined
 * when neither file exists. A leftover `<name>.json.tmp` (a snapshot being written) is not data.
 */
export function readOldDocument(path: string): OldDocument | undefined {
  const snapshot = readSnapshot(path);
  const log = `${path}.changes`;
  const data: OldDocument = snapshot ?? Object.create(null);
  const { found } = eachOldLine(log, (line, number) => {
    let changes: unknown;
    try {
      changes = JSON.parse(line);
    } catch (err: unknown) {
      throw new PreSqliteImportError(log, `line ${number}`, 'not valid JSON', { cause: err });
    }
    applyChangeSet(data, changes, log, number);
  });
  return snapshot === undefined && !found ? undefined : data;
}

function readSnapshot(path: string): OldDocument | undefined {
  let format: 'lines' | 'one object' | undefined;
  const data: OldDocument = Object.create(null);
  const { found, tornBytes } = eachOldLine(path, (line, number) => {
    if (format === 'one object') return;
    if (format === undefined) {
      format = line === SNAPSHOT_HEADER ? 'lines' : 'one object';
      return;
    }
    applySnapshotLine(data, parse(path, line, number), path, number);
  });
  if (!found) return undefined;
  // A snapshot was always renamed into place whole: a cut-short one is damage, not a crash the engine allowed for.
  if (format === 'lines' && tornBytes > 0) throw new PreSqliteImportError(path, 'its last line', 'cut short (the file is damaged)');
  if (format === 'lines') return data;
  if (format === undefined && tornBytes === 0) return data; // an empty file: an empty document
  return readOneObject(path);
}

function readOneObject(path: string): OldDocument {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err: unknown) {
    throw new PreSqliteImportError(path, 'the whole file', 'not valid JSON', { cause: err });
  }
  if (!isObject(parsed)) throw new PreSqliteImportError(path, 'the whole file', 'not a JSON object');
  return parsed;
}

function parse(path: string, line: string, number: number): unknown {
  try {
    return JSON.parse(line);
  } catch (err: unknown) {
    throw new PreSqliteImportError(path, `line ${number}`, 'not valid JSON', { cause: err });
  }
}

function applySnapshotLine(data: OldDocument, entry: unknown, path: string, number: number): void {
  if (Array.isArray(entry) && entry[0] === 'put' && typeof entry[1] === 'string' && entry.length === 3) {
    setOwn(data, entry[1], entry[2]);
    return;
  }
  if (Array.isArray(entry) && entry[0] === 'rec' && typeof entry[1] === 'string' && typeof entry[2] === 'string' && entry.length === 4) {
    const collection = data[entry[1]];
    if (!isObject(collection)) throw new PreSqliteImportError(path, `line ${number}`, `a record of "${entry[1]}" before the collection itself`);
    setOwn(collection, entry[2], entry[3]);
    return;
  }
  throw new PreSqliteImportError(path, `line ${number}`, 'not a snapshot entry');
}

/** One group commit of the old engine: whole fields replaced, then records set, then records deleted. */
function applyChangeSet(data: OldDocument, changes: unknown, path: string, number: number): void {
  if (!isObject(changes)) throw new PreSqliteImportError(path, `line ${number}`, 'not a change set');
  const { put = [], set = [], del = [] } = changes as { put?: unknown; set?: unknown; del?: unknown };
  if (!Array.isArray(put) || !Array.isArray(set) || !Array.isArray(del)) throw new PreSqliteImportError(path, `line ${number}`, 'not a change set');
  for (const entry of put) {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string') throw new PreSqliteImportError(path, `line ${number}`, 'a field change without a field name');
    setOwn(data, entry[0], entry[1]);
  }
  for (const entry of set) {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || typeof entry[1] !== 'string') throw new PreSqliteImportError(path, `line ${number}`, 'a record change without a collection and key');
    const collection = data[entry[0]];
    if (isObject(collection)) setOwn(collection, entry[1], entry[2]);
    else setOwn(data, entry[0], setOwn(Object.create(null), entry[1], entry[2]));
  }
  for (const entry of del) {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || typeof entry[1] !== 'string') throw new PreSqliteImportError(path, `line ${number}`, 'a record deletion without a collection and key');
    const collection = data[entry[0]];
    if (isObject(collection)) delete collection[entry[1]];
  }
}

/** An own property even for the key "__proto__", which plain assignment would turn into a prototype change. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  return target;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
