import { open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DamagedDataError } from './damaged-data-error.js';
import type { SharedValues } from './shared-values.js';
import { readLines } from './read-lines.js';
import { syncDir } from './sync-dir.js';
import { writeFully } from './write-fully.js';

const HEADER = '{"crateflow_snapshot":2}';
const CHUNK_CHARS = 1024 * 1024;
const RECOVERY = 'restore the data dir from a backup, or move this file away to start without it';

/**
 * A document's snapshot (`<name>.json`), one record per line: a header line, then `["put", field, value]` for a
 * plain field and `["rec", field, key, value]` for each record of a keyed collection. No single string ever
 * holds the whole store, so writing and reading work in bounded memory for any size the store's bounds allow
 * (a 517 MiB one-line snapshot could be written but never read back). A snapshot in the first format (one JSON
 * object) is still read.
 *
 * Written to a temp file, flushed, renamed over the old one and the directory synced: a crash at any moment
 * leaves the old or the new complete file. A leftover temp file is removed at the next read.
 */
export class SnapshotFile {
  private readonly tempPath: string;

  constructor(readonly path: string) {
    this.tempPath = `${path}.tmp`;
  }

  /** The stored fields, or null when there is no snapshot yet. */
  async read(options: { keepTemp?: boolean; shared?: SharedValues } = {}): Promise<Record<string, unknown> | null> {
    if (!options.keepTemp) {
      await unlink(this.tempPath).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
    }
    const data: Record<string, unknown> = Object.create(null);
    let format: 'lines' | 'legacy' | undefined;
    const found = await readLines(this.path, {
      line: (text, number) => {
        if (format === 'legacy') return;
        if (format === undefined) {
          format = text === HEADER ? 'lines' : 'legacy';
          return;
        }
        applyLine(data, parseLine(this.path, text, number), this.path, number, options.shared);
      },
      torn: () => {
        if (format === 'lines') throw new DamagedDataError(this.path, 'the last line is cut short', RECOVERY);
      },
    });
    if (!found) return null;
    if (format === 'lines') return data;
    return readLegacy(this.path);
  }

  /** Replaces the snapshot with `data`; `collections` are the fields stored record by record. */
  async write(data: object, collections: ReadonlySet<string>): Promise<void> {
    const chunks = serialize(data, collections); // taken synchronously: the snapshot is of one moment
    const handle = await open(this.tempPath, 'w');
    try {
      let position = 0;
      for (const chunk of chunks) {
        const bytes = Buffer.from(chunk);
        await writeFully(handle, bytes, position);
        position += bytes.length;
      }
      await handle.datasync();
    } catch (err: unknown) {
      await handle.close();
      await unlink(this.tempPath).catch(() => undefined); // a half temp file is removed at the next read anyway
      throw err;
    }
    await handle.close();
    await rename(this.tempPath, this.path);
    await syncDir(dirname(this.path));
  }
}

function serialize(data: object, collections: ReadonlySet<string>): string[] {
  const chunks: string[] = [];
  let current = `${HEADER}\n`;
  const push = (line: string) => {
    current += `${line}\n`;
    if (current.length >= CHUNK_CHARS) {
      chunks.push(current);
      current = '';
    }
  };
  for (const [field, value] of Object.entries(data)) {
    if (collections.has(field) && isRecordMap(value)) {
      push(JSON.stringify(['put', field, {}])); // an empty collection still exists after a reload
      for (const [key, record] of Object.entries(value)) push(JSON.stringify(['rec', field, key, record]));
    } else {
      push(JSON.stringify(['put', field, value]));
    }
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

function parseLine(path: string, text: string, number: number): unknown {
  try {
    return JSON.parse(text);
  } catch (err: unknown) {
    throw new DamagedDataError(path, `line ${number} is not valid JSON`, RECOVERY, { cause: err });
  }
}

function applyLine(data: Record<string, unknown>, line: unknown, path: string, number: number, shared: SharedValues | undefined): void {
  if (Array.isArray(line) && line[0] === 'put' && typeof line[1] === 'string' && line.length === 3) {
    data[line[1]] = line[2];
    return;
  }
  if (Array.isArray(line) && line[0] === 'rec' && typeof line[1] === 'string' && typeof line[2] === 'string' && line.length === 4) {
    const collection = data[line[1]];
    if (!isRecordMap(collection)) throw new DamagedDataError(path, `line ${number} holds a record of "${line[1]}" before the collection itself`, RECOVERY);
    shared?.share(line[3]);
    setOwn(collection, line[2], line[3]);
    return;
  }
  throw new DamagedDataError(path, `line ${number} is not a snapshot entry`, RECOVERY);
}

async function readLegacy(path: string): Promise<Record<string, unknown>> {
  const text = await readFile(path, 'utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err: unknown) {
    throw new DamagedDataError(path, 'not valid JSON', RECOVERY, { cause: err });
  }
  if (!isRecordMap(parsed)) throw new DamagedDataError(path, 'does not hold a JSON object', RECOVERY);
  return parsed;
}

/**
 * Sets an own property even for a key like "__proto__", which plain assignment would turn into a prototype
 * change. Only that key needs defineProperty (several times slower: a start-up sets one per stored record); a
 * plain assignment to any other key makes an own property, or updates it, on the prototype-less collections and
 * on fresh objects alike, since Object.prototype has no setters but __proto__.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

function isRecordMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
