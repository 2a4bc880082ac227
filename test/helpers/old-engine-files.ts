// The files of the storage engine before SQLite, byte for byte as the last version with it (commit 64ca710) wrote
// them, for tests of the import of earlier data dirs (core/pre-sqlite-import). Reproduced from that commit's writers,
// which are gone from this tree: core/storage/snapshot-file.ts, change-log.ts and json-document.ts (documents),
// core/queue/decided-history.ts, core/wishlist/waiting-wishlist.ts and core/storage/record-archive.ts (line files),
// core/library/library-albums-file.ts, library-catalog.ts and library-index.ts (the catalogue and its keys). Nothing
// here imports the engine, so these tests keep working without it. Checked once, byte for byte, against that commit's
// classes run from its tree: every kind of line, a catalogue with library.json, and 3,000 commits of a document across
// a compaction, both stopped and killed mid-append. Not reproduced: the `.idx` files the engine saved beside its line
// files (caches that the import ignores and only moves; the committed fixture dirs hold real ones) and the lock file.
import { writeFile } from 'node:fs/promises';
import { artistKey, normalizeName, type LibraryAlbum } from '@crateflow/sdk';

const SNAPSHOT_HEADER = '{"crateflow_snapshot":2}';
/** The engine folded a document's change log into a new snapshot once the log grew past this many bytes. */
const COMPACT_AFTER_BYTES = 8 * 1024 * 1024;

type Fields = Record<string, unknown>;

/** What one commit did to a document: records set or deleted in its keyed collections, top-level fields replaced. */
export interface DocumentEdit {
  set(field: string, key: string, value: unknown): void;
  del(field: string, key: string): void;
  put(field: string, value: unknown): void;
}

/**
 * One document (`<name>.json` and `<name>.json.changes`) as the engine kept it: each commit appended one change set
 * (`{"set":[…],"del":[…],"put":[…]}`) to the log, naming only what it touched; past 8 MiB of log, and at a clean
 * stop, the data was written whole as a snapshot (a header line, then `["put", field, value]`, and for a keyed
 * collection `["put", field, {}]` followed by one `["rec", field, key, record]` a record) and the log emptied. The
 * log file, once made by a first append, stays (empty) after that; a document never appended to has none.
 */
export class OldDocument {
  readonly data: Fields;
  private snapshot: string | undefined;
  private log: string[] = [];
  private logBytes = 0;
  private logMade = false;
  private killed = false;
  // What the commit under way touched: records by field (in the order first touched), and whole fields.
  private touchedRecords: { field: string; keys: string[] }[] = [];
  private touchedFields: string[] = [];
  private readonly edit: DocumentEdit;

  constructor(initial: Fields, private readonly collections: readonly string[]) {
    this.data = structuredClone(initial);
    const document = this;
    // One editor for every commit: a test writes hundreds of thousands of them.
    this.edit = {
      set(field, key, value) {
        (document.data[field] as Fields)[key] = value;
        document.touch(field, key);
      },
      del(field, key) {
        delete (document.data[field] as Fields)[key];
        document.touch(field, key);
      },
      put(field, value) {
        document.data[field] = value;
        if (!document.touchedFields.includes(field)) document.touchedFields.push(field);
      },
    };
  }

  /**
   * Runs one commit: `change`, then `finish` (what the store did at the end of every commit); its change set is
   * appended to the log, and the log folded into a snapshot once past 8 MiB.
   */
  commit(change: (edit: DocumentEdit) => void, finish?: (edit: DocumentEdit) => void): void {
    const line = this.changeSetOf(change, finish);
    if (line === undefined) return;
    this.append(line);
    if (this.logBytes > COMPACT_AFTER_BYTES) this.fold();
  }

  /**
   * The last commit before the process was killed, cut short in the middle of its append: the first half of its
   * change set, without a newline (its lines were flushed to the line files before, past their acknowledged length).
   * Nothing can be committed after it.
   */
  tornCommit(change: (edit: DocumentEdit) => void, finish?: (edit: DocumentEdit) => void): void {
    const line = this.changeSetOf(change, finish);
    if (line === undefined) throw new Error('a torn commit needs a change');
    this.append(line.slice(0, Math.floor(line.length / 2)));
    this.killed = true;
  }

  /** A commit that touched nothing (a document replaced whole, like the library's): a snapshot, no log line. */
  replaceWhole(fields: Fields): void {
    Object.assign(this.data, fields);
    this.fold();
  }

  /** A clean stop (or a compaction): the data becomes the snapshot, and the log is emptied. */
  fold(): void {
    if (this.killed) throw new Error('the process was killed');
    this.snapshot = snapshotOf(this.data, this.collections);
    this.log = [];
    this.logBytes = 0;
  }

  /** Writes `<path>` (when the document was ever folded) and `<path>.changes` (when it was ever appended to). */
  async write(path: string): Promise<void> {
    if (this.snapshot !== undefined) await writeFile(path, this.snapshot);
    if (this.logMade) await writeFile(`${path}.changes`, this.log.join(''));
  }

  /**
   * Runs the commit on the data and answers its change set as the engine collected it (undefined: nothing touched).
   * Records touched in a field also replaced whole are left to `put`; a touched record is `set` to its value at the
   * end of the commit, or in `del` when it no longer exists.
   */
  private changeSetOf(change: (edit: DocumentEdit) => void, finish: ((edit: DocumentEdit) => void) | undefined): string | undefined {
    if (this.killed) throw new Error('the process was killed');
    this.touchedRecords = [];
    this.touchedFields = [];
    change(this.edit);
    finish?.(this.edit);
    if (this.touchedRecords.length === 0 && this.touchedFields.length === 0) return undefined;
    const changes: { set: unknown[]; del: unknown[]; put: unknown[] } = { set: [], del: [], put: [] };
    for (const { field, keys } of this.touchedRecords) {
      if (this.touchedFields.includes(field)) continue;
      const collection = this.data[field] as Fields;
      for (const key of keys) {
        if (Object.hasOwn(collection, key) && collection[key] !== undefined) changes.set.push([field, key, collection[key]]);
        else changes.del.push([field, key]);
      }
    }
    for (const field of this.touchedFields) changes.put.push([field, this.data[field]]);
    return `${JSON.stringify(changes)}\n`;
  }

  private touch(field: string, key: string): void {
    const touched = this.touchedRecords.find((entry) => entry.field === field);
    if (touched === undefined) this.touchedRecords.push({ field, keys: [key] });
    else if (!touched.keys.includes(key)) touched.keys.push(key);
  }

  private append(text: string): void {
    this.log.push(text);
    this.logBytes += Buffer.byteLength(text);
    this.logMade = true;
  }
}

function snapshotOf(data: Fields, collections: readonly string[]): string {
  const lines = [SNAPSHOT_HEADER];
  for (const [field, value] of Object.entries(data)) {
    if (collections.includes(field) && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      lines.push(JSON.stringify(['put', field, {}]));
      for (const [key, record] of Object.entries(value)) lines.push(JSON.stringify(['rec', field, key, record]));
    } else {
      lines.push(JSON.stringify(['put', field, value]));
    }
  }
  return `${lines.join('\n')}\n`;
}

/**
 * An append-only line file (`queue-history.jsonl`, `wishlist-waiting.jsonl`, `archive.jsonl`). Its length counts
 * once the core document records it (`history_bytes`, `waiting_bytes`, `archive_bytes`) in the commit that wrote
 * the lines: the engine flushed the lines just before that commit's log append.
 */
export class OldLineFile {
  private readonly lines: string[] = [];
  private length = 0;

  /** The file's length in bytes now: what the core document records to make every line so far count. */
  get bytes(): number {
    return this.length;
  }

  append(line: string): void {
    this.lines.push(`${line}\n`);
    this.length += Buffer.byteLength(line) + 1;
  }

  async write(path: string): Promise<void> {
    await writeFile(path, this.lines.join(''));
  }
}

/** What the engine matched an album by. */
export interface AlbumNames {
  artist: string;
  album?: string;
  title?: string;
  mbid?: string;
  release_group_mbid?: string;
}

/**
 * An album's name key by the rules of 64ca710: the artist credit as a set of artists, U+001D, the album (or a track's
 * title). The sdk's artistKey and normalizeName are unchanged since then; the import makes every key again anyway.
 */
function nameKeyOf(item: AlbumNames): string {
  const second = item.album ?? item.title;
  return second ? `${artistKey(item.artist)}\x1d${normalizeName(second)}` : '';
}

/** A key field of a history or waiting-list line: a tab or line break in it would split the line. */
const keyField = (text: string | undefined) => (text ? text.replace(/[\t\r\n]/g, ' ') : '');
const keyFieldsOf = (item: AlbumNames) => `${keyField(item.mbid?.toLowerCase())}\t${keyField(nameKeyOf(item))}`;

/** `D <TAB> id <TAB> status <TAB> mbid <TAB> name key <TAB> record`: a decision, in queue-history.jsonl. */
export const decidedLine = (item: AlbumNames & { id: string; status: string }) => `D\t${item.id}\t${item.status}\t${keyFieldsOf(item)}\t${JSON.stringify(item)}`;

/** `R <TAB> id <TAB><TAB> mbid <TAB> name key <TAB> {}`: the decision withdrawn, the item pending again. */
export const restoredLine = (item: AlbumNames & { id: string }) => `R\t${item.id}\t\t${keyFieldsOf(item)}\t{}`;

/** `W <TAB> id <TAB> mbid <TAB> name key <TAB> record`: a wanted item waiting for its first download. */
export const waitingLine = (item: AlbumNames & { id: string }) => `W\t${item.id}\t${keyFieldsOf(item)}\t${JSON.stringify(item)}`;

/** `L <TAB> id <TAB> mbid <TAB> name key <TAB> {}`: the item left the waiting list (its first download, or removed). */
export const leftLine = (item: AlbumNames & { id: string }) => `L\t${item.id}\t${keyFieldsOf(item)}\t{}`;

/** `downloads|jobs <TAB> id <TAB> filters <TAB> record`, the filters as URI-encoded `name=value` pairs in name order. */
export function archivedLine(collection: 'downloads' | 'jobs', record: { id: string }, filters: Record<string, string>): string {
  const encoded = Object.keys(filters)
    .sort()
    .map((name) => `${encodeURIComponent(name)}=${encodeURIComponent(filters[name] ?? '')}`)
    .join('&');
  return `${collection}\t${record.id}\t${encoded}\t${JSON.stringify(record)}`;
}

/**
 * `library-albums.jsonl`, replaced whole at each sync: the albums in shelf order (artist, then album, compared as
 * the catalogue compared them), each line `mbids <TAB> name keys <TAB> album`, several keys of a kind joined by
 * U+001E; an album has a name key under its artist and under each of its `artists`.
 */
export function libraryAlbumsFileOf(albums: readonly LibraryAlbum[]): string {
  const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });
  const shelved = [...albums].sort((a, b) => collator.compare(a.artist, b.artist) || collator.compare(a.album, b.album));
  const clean = (key: string) => key.replace(/[\t\n\r\x1e]/g, ' ');
  return shelved
    .map((album) => {
      const mbids = [album.mbid, album.release_group_mbid].filter((id): id is string => Boolean(id)).map((id) => clean(id.toLowerCase()));
      const names = new Set<string>();
      for (const artist of [album.artist, ...(album.artists ?? [])]) {
        const name = nameKeyOf({ ...album, artist });
        if (name) names.add(name);
      }
      return `${mbids.join('\x1e')}\t${[...names].map(clean).join('\x1e')}\t${JSON.stringify(album)}\n`;
    })
    .join('');
}
