import { open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { LibraryAlbum } from '@crateflow/sdk';
import { DamagedDataError } from '../storage/damaged-data-error.js';
import { readLineBytes } from '../storage/read-lines.js';
import { nthTab } from '../storage/nth-tab.js';
import { syncDir } from '../storage/sync-dir.js';
import { writeFully } from '../storage/write-fully.js';
import { isCurrentNameKey, matchKeysOf, type MatchKeys } from './library-index.js';

const READ_BYTES = 4 * 1024;
const WRITE_BYTES = 1024 * 1024;
/** Between the keys of one kind on a line (U+001E: a name key holds U+001F between artist and album). */
const LIST = '\x1e';
const LIST_BYTE = 0x1e;
const RECOVERY = 'move this file away and run a library sync: the catalogue is read again from the library';

/** What tells one albums file from another: a sync writes a new file (a new inode) and renames it into place. */
export interface FileIdentity {
  dev: string;
  ino: string;
  size: string;
  mtime: string;
}

export function sameFile(a: FileIdentity, b: FileIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtime === b.mtime;
}

/** One line of the file as the index needs it: where it starts and the keys it is matched by. */
export interface IndexedLine {
  offset: number;
  keys: MatchKeys;
}

/**
 * The library catalogue on disk (`library-albums.jsonl`), one album a line in shelf order, so a 100,000-album
 * library costs memory only for its match keys and line offsets. Each line starts with the album's keys
 * (`mbids <TAB> name keys <TAB> JSON`, several of either joined by U+001E) so an index is rebuilt at start-up
 * without parsing a single album. JSON holds no raw tab or newline, and keys are stripped of them.
 *
 * A sync replaces the file whole: written to a temp file, flushed, renamed over the old one and the directory
 * synced, so a crash or a full disk leaves the old or the new catalogue, never a mix. Readers hold the handle
 * they started with: a replacement never pulls the file from under a page being read.
 */
export class LibraryAlbumsFile {
  private readonly tempPath: string;
  private handle: FileHandle | undefined;
  private readers = 0;
  private retired: FileHandle[] = [];

  constructor(readonly path: string) {
    this.tempPath = `${path}.tmp`;
  }

  /** Every line's offset and keys, in file order; none when there is no file yet. */
  async index(): Promise<IndexedLine[]> {
    await unlink(this.tempPath).catch(ignoreMissing);
    const lines: IndexedLine[] = [];
    let offset = 0;
    await readLineBytes(this.path, {
      line: (bytes, number) => {
        lines.push({ offset, keys: keysOfLine(bytes, this.path, number) });
        offset += bytes.length + 1;
      },
      torn: () => {
        throw new DamagedDataError(this.path, 'its last line has no end (this file is only ever replaced whole)', RECOVERY);
      },
    });
    this.handle = await open(this.path, 'r').catch(ignoreMissing);
    return lines;
  }

  /** Which file is there now (none yet: undefined), to tell whether an index saved beside it is of it. */
  async identity(): Promise<FileIdentity | undefined> {
    const info = await stat(this.path, { bigint: true }).catch(ignoreMissing);
    return info && { dev: String(info.dev), ino: String(info.ino), size: String(info.size), mtime: String(info.mtimeNs) };
  }

  /** Opens the file for page reads without indexing it (the index was loaded from disk). */
  async openForReading(): Promise<void> {
    await unlink(this.tempPath).catch(ignoreMissing);
    this.handle = await open(this.path, 'r').catch(ignoreMissing);
  }

  /** Replaces the catalogue with `albums` (in the order given); answers each line's offset and keys. */
  async replace(albums: readonly LibraryAlbum[]): Promise<IndexedLine[]> {
    const lines: IndexedLine[] = [];
    const temp = await open(this.tempPath, 'w');
    try {
      let chunk: Buffer[] = [];
      let chunkBytes = 0;
      let offset = 0;
      let written = 0;
      for (const album of albums) {
        const keys = matchKeysOf(album);
        const line = Buffer.from(`${keys.mbids.map(clean).join(LIST)}\t${keys.names.map(clean).join(LIST)}\t${JSON.stringify(album)}\n`);
        lines.push({ offset, keys });
        offset += line.length;
        chunk.push(line);
        chunkBytes += line.length;
        if (chunkBytes >= WRITE_BYTES) {
          await writeFully(temp, Buffer.concat(chunk), written);
          written += chunkBytes;
          chunk = [];
          chunkBytes = 0;
        }
      }
      await writeFully(temp, Buffer.concat(chunk), written);
      await temp.sync();
    } catch (err: unknown) {
      await temp.close().catch(() => undefined);
      await unlink(this.tempPath).catch(() => undefined);
      throw err;
    }
    await temp.close();
    await rename(this.tempPath, this.path);
    await syncDir(dirname(this.path));
    const previous = this.handle;
    this.handle = await open(this.path, 'r');
    if (previous) this.retire(previous);
    return lines;
  }

  /** The albums whose lines start at `offsets`, in that order. */
  async read(offsets: readonly number[]): Promise<LibraryAlbum[]> {
    const handle = this.handle;
    if (!handle || offsets.length === 0) return [];
    this.readers++;
    try {
      const albums: LibraryAlbum[] = [];
      for (const offset of offsets) albums.push(await readAlbum(handle, offset, this.path));
      return albums;
    } finally {
      this.readers--;
      if (this.readers === 0) await this.closeRetired();
    }
  }

  /** Every album in file order, a chunk of lines at a time (for a search over the whole catalogue). */
  async scan(visit: (album: LibraryAlbum, index: number) => void): Promise<void> {
    let index = 0;
    await readLineBytes(this.path, {
      line: (bytes, number) => visit(parseAlbum(bytes.toString('utf8'), this.path, number), index++),
    });
  }

  async close(): Promise<void> {
    if (this.handle) this.retire(this.handle);
    this.handle = undefined;
    if (this.readers === 0) await this.closeRetired();
  }

  private retire(handle: FileHandle): void {
    this.retired.push(handle);
    if (this.readers === 0) void this.closeRetired();
  }

  private async closeRetired(): Promise<void> {
    const handles = this.retired;
    this.retired = [];
    await Promise.all(handles.map((h) => h.close().catch(() => undefined)));
  }
}

function keysOfLine(line: Buffer, path: string, number: number): MatchKeys {
  const first = line.indexOf(9);
  const second = first === -1 ? -1 : line.indexOf(9, first + 1);
  if (second === -1) throw new DamagedDataError(path, `line ${number} is not a catalogue line`, RECOVERY);
  const mbids: string[] = [];
  const names: string[] = [];
  // Each key decoded on its own from the bytes: one flat string each, nothing of the line kept.
  eachPart(line, 0, first, (start, end) => mbids.push(line.toString('utf8', start, end)));
  eachPart(line, first + 1, second, (start, end) => names.push(line.toString('utf8', start, end)));
  // Name keys made by an earlier version's rules (a file not synced since the upgrade): made again from the album.
  if (!names.every(isCurrentNameKey)) return matchKeysOf(parseAlbum(line.toString('utf8'), path, number));
  return { mbids, names };
}

function eachPart(line: Buffer, start: number, end: number, take: (start: number, end: number) => void): void {
  if (start === end) return;
  for (let from = start; ; ) {
    const next = line.indexOf(LIST_BYTE, from);
    const to = next === -1 || next > end ? end : next;
    take(from, to);
    if (to === end) return;
    from = to + 1;
  }
}

async function readAlbum(handle: FileHandle, offset: number, path: string): Promise<LibraryAlbum> {
  for (let size = READ_BYTES; ; size *= 4) {
    const buffer = Buffer.alloc(size);
    const { bytesRead } = await handle.read(buffer, 0, size, offset);
    const newline = buffer.subarray(0, bytesRead).indexOf(10);
    if (newline !== -1) return parseAlbum(buffer.toString('utf8', 0, newline), path, `at byte ${offset}`);
    if (bytesRead < size) throw new DamagedDataError(path, `the line at byte ${offset} has no end`, RECOVERY);
  }
}

function parseAlbum(line: string, path: string, where: number | string): LibraryAlbum {
  const at = nthTab(line, 2);
  let album: unknown;
  try {
    album = JSON.parse(line.slice(at + 1));
  } catch {
    album = undefined;
  }
  if (!isAlbumRecord(album)) throw new DamagedDataError(path, `line ${where} does not hold an album`, RECOVERY);
  return album;
}

/**
 * What every reader of an album relies on. The sync checked each album against the sdk's schema before it was
 * written, so a line without these was damaged on disk, not written so.
 */
function isAlbumRecord(value: unknown): value is LibraryAlbum {
  return typeof value === 'object' && value !== null && typeof Reflect.get(value, 'artist') === 'string' && typeof Reflect.get(value, 'album') === 'string';
}

function clean(key: string): string {
  return key.replace(/[\t\n\r\x1e]/g, ' ');
}

function ignoreMissing(err: NodeJS.ErrnoException): undefined {
  if (err.code === 'ENOENT') return undefined;
  throw err;
}
