import { join } from 'node:path';
import type { DomainEvent, EventType } from '@crateflow/sdk';
import { retireDownloadsOf } from '../downloads/finished-downloads.js';
import { ServiceUnavailableError } from '../errors/service-unavailable-error.js';
import type { EventBus } from '../events/event-bus.js';
import { DecidedHistory } from '../queue/decided-history.js';
import type { QueueItem } from '../queue/queue-item.schema.js';
import type { AppendOnlyLines } from './append-only-lines.js';
import { checkCoreData } from './check-core-data.js';
import { CollectionWatch, type TouchedKeys } from './collection-watch.js';
import { RecordArchive } from './record-archive.js';
import { CORE_COLLECTIONS, type CoreData } from './core-data.js';
import type { JsonDocument } from './json-document.js';
import { trackChanges, type DeepReadonly } from './track-changes.js';
import { byCodeUnits } from '../sorting/code-unit-order.js';
import { WaitingWishlist } from '../wishlist/waiting-wishlist.js';

export type Emit = (type: EventType, data: DomainEvent['data']) => void;

/** What a mutation gets besides the data and a way to emit events: the files records move out to. */
export interface MutationTools {
  /** Decided queue items. */
  history: Pick<DecidedHistory, 'stageDecided' | 'stageRestored' | 'bytes'>;
  /** Finished downloads and old jobs. */
  archive: Pick<RecordArchive, 'stage'>;
  /** Wishlist items waiting for their first download. */
  waiting: Pick<WaitingWishlist, 'stageWaiting' | 'stageLeft' | 'has'>;
}

interface LineFile {
  file: AppendOnlyLines;
  length: 'history_bytes' | 'archive_bytes' | 'waiting_bytes';
}

// Enough for the dashboard's activity list.
const RECENT_EVENTS = 50;
const COLLECTIONS: ReadonlySet<string> = new Set<string>(CORE_COLLECTIONS);
/** The collections only mutations change (the event journal and the recent events are written beside them). */
const DOMAIN_COLLECTIONS = ['queue', 'wishlist', 'downloads', 'jobs'] as const;
export type DomainCollection = (typeof DOMAIN_COLLECTIONS)[number];

/**
 * The domain's unit of work. `mutate()` runs a synchronous change against the data (so nothing interleaves),
 * journals the events it emits in the same commit, waits until the commit is on disk, and only then publishes
 * the events. Callers answer the HTTP request after `mutate()` resolves. A commit that fails is rolled back
 * (the document, the decided history and the archive go back to the last acknowledged state), its events are never
 * published, and `onRollback` listeners rebuild their indexes.
 *
 * Outside `mutate()` the data is deeply read-only (by type), so every change goes through a mutation, where
 * it is tracked and logged record by record.
 */
export class CoreStore {
  /** The append-only files beside the document, each with the field that holds its acknowledged length. */
  private readonly lineFiles: readonly LineFile[];
  private readonly watch: CollectionWatch;

  /** Use `CoreStore.open()`, which checks the data and opens the history first. */
  constructor(
    private readonly doc: JsonDocument<CoreData>,
    private readonly events: EventBus,
    readonly history: DecidedHistory,
    readonly archive: RecordArchive,
    readonly waiting: WaitingWishlist,
  ) {
    this.lineFiles = [
      { file: history, length: 'history_bytes' },
      { file: archive, length: 'archive_bytes' },
      { file: waiting, length: 'waiting_bytes' },
    ];
    this.watch = new CollectionWatch(() => doc.data, DOMAIN_COLLECTIONS);
  }

  /**
   * Opens the store on the core document: checks its records, opens the decided history, the archive and the
   * waiting wishlist, moves old data over.
   */
  static async open(doc: JsonDocument<CoreData>, events: EventBus, dataDir: string): Promise<CoreStore> {
    checkCoreData(doc.data, doc.path);
    // Records are looked up by ids taken from URLs. Behind Object.prototype, an id like "toString" or
    // "__proto__" would find an inherited member instead of nothing (GET /jobs/toString answered 500, DELETE
    // /wishlist/constructor 204 with a wishlist_removed event for nobody). Without a prototype, a collection
    // holds only its own records.
    const nullPrototypes = () => {
      for (const field of CORE_COLLECTIONS) Object.setPrototypeOf(doc.data[field], null);
    };
    nullPrototypes();
    const opened: AppendOnlyLines[] = [];
    const openLines = async <F extends AppendOnlyLines>(opening: Promise<F>): Promise<F> => {
      const file = await opening.catch(async (err: unknown) => {
        for (const done of opened) await done.close();
        throw err;
      });
      opened.push(file);
      return file;
    };
    const history = await openLines(DecidedHistory.open(join(dataDir, 'queue-history.jsonl'), doc.data.history_bytes));
    const archive = await openLines(RecordArchive.open(join(dataDir, 'archive.jsonl'), doc.data.archive_bytes));
    const waiting = await openLines(WaitingWishlist.open(join(dataDir, 'wishlist-waiting.jsonl'), doc.data.waiting_bytes));
    const store = new CoreStore(doc, events, history, archive, waiting);
    doc.beforeWrite(async () => {
      for (const { file } of store.lineFiles) await file.flush();
    });
    doc.onRollback(async () => {
      nullPrototypes();
      store.watch.recount();
      for (const { file, length } of store.lineFiles) await file.reload(doc.data[length]);
    });
    await store.moveOldData();
    return store;
  }

  get data(): DeepReadonly<CoreData> {
    return this.doc.data;
  }

  /** Runs `listener` after a failed commit put the data back: indexes derived from the data must be rebuilt. */
  onRollback(listener: () => void): void {
    this.doc.onRollback(listener);
  }

  /** How many records `collection` holds, without walking it. */
  size(collection: DomainCollection): number {
    return this.watch.size(collection);
  }

  /**
   * Tells `listener` which records of `collection` each mutation touched, right after its change ran (before the
   * commit): indexes derived from a collection follow it record by record. A failed commit is announced by
   * `onRollback` instead.
   */
  onTouched(collection: DomainCollection, listener: (keys: TouchedKeys) => void): void {
    this.watch.onTouched(collection, listener);
  }

  async mutate<T>(change: (data: CoreData, emit: Emit, tools: MutationTools) => T): Promise<T> {
    // A failed commit is being undone: the data is being read back and the history and the archive cut back to
    // their acknowledged length. A change made now would be thrown away with the data, or staged into files
    // that are being reset; it waits and is made on what was read back.
    while (this.doc.rollingBack) await this.doc.rollingBack.catch(() => undefined);
    const emitted: DomainEvent[] = [];
    let touched = false;
    const touches = this.watch.begin();
    const data = trackChanges(this.doc.data, COLLECTIONS, (field, key) => {
      touched = true;
      touches.note(field, key);
      this.doc.touch(field as keyof CoreData, key); // field comes from CoreData's own keys
    });
    const lengthsBefore = this.lineFiles.map(({ file }) => file.bytes);
    let result: T;
    try {
      const tools = { history: this.history, archive: this.archive, waiting: this.waiting };
      result = change(data, (type, eventData) => emitted.push(this.events.record(type, eventData)), tools);
    } finally {
      // Also when the change threw part-way: what it wrote stays in memory, and the lines it staged stay staged
      // (both go out with the next commit).
      for (const [i, { file, length }] of this.lineFiles.entries()) if (file.bytes !== lengthsBefore[i]) data[length] = file.bytes;
      touches.end();
    }
    if (emitted.length > 0) this.keepRecent(emitted);
    if (!touched && emitted.length === 0) return result;
    try {
      await this.doc.commit();
    } catch (err: unknown) {
      throw new ServiceUnavailableError('the change could not be saved (the data dir is full or not writable); nothing was changed', { cause: err });
    }
    for (const { file, length } of this.lineFiles) file.committed(this.doc.data[length]);
    if (emitted.length > 0) this.events.publish(emitted);
    return result;
  }

  /** Closes the decided history, the archive and the waiting wishlist, saving their indexes (at shutdown). */
  async close(): Promise<void> {
    for (const { file, length } of this.lineFiles) await file.close(this.doc.data[length]);
  }

  private keepRecent(events: readonly DomainEvent[]): void {
    const recent = this.doc.data.recent;
    for (const event of events) {
      recent[event.id] = event;
      this.doc.touch('recent', event.id);
    }
    const keys = Object.keys(recent);
    for (const key of keys.slice(0, Math.max(0, keys.length - RECENT_EVENTS))) {
      delete recent[key];
      this.doc.touch('recent', key);
    }
  }

  /**
   * Data written by earlier versions: decided queue items kept in the document move to the history, finished
   * downloads of albums no longer on the wishlist (kept in the document, the newest 1,000) move to the archive,
   * wishlist items that never had a download move to the waiting wishlist, and the dashboard's event list (one
   * array rewritten at every commit) becomes a collection.
   */
  private async moveOldData(): Promise<void> {
    const raw: object = this.doc.data; // read as a plain object: fields of older versions are not in CoreData
    const oldRecent: unknown = Reflect.get(raw, 'recent_events');
    const decided = Object.values(this.doc.data.queue).filter((item): item is QueueItem & { status: 'approved' | 'rejected' } => item.status !== 'pending');
    const downloaded = new Set(Object.values(this.doc.data.downloads).map((d) => d.wishlist_id));
    const goneItems = new Set([...downloaded].filter((id) => !Object.hasOwn(this.doc.data.wishlist, id)));
    const waiting = Object.values(this.doc.data.wishlist).filter((item) => item.status === 'wanted' && !downloaded.has(item.id));
    if (decided.length === 0 && goneItems.size === 0 && waiting.length === 0 && oldRecent === undefined) return;
    decided.sort((a, b) => byCodeUnits(a.decided_at ?? '', b.decided_at ?? ''));
    await this.mutate((data, _emit, tools) => {
      for (const item of decided) {
        tools.history.stageDecided({ ...item });
        delete data.queue[item.id];
      }
      retireDownloadsOf(data, goneItems, tools.archive);
      for (const item of waiting) {
        tools.waiting.stageWaiting(item);
        delete data.wishlist[item.id];
      }
      if (Array.isArray(oldRecent)) for (const event of oldRecent.slice(-RECENT_EVENTS).filter(isStoredEvent)) data.recent[event.id] = event;
    });
    if (oldRecent !== undefined) {
      Reflect.deleteProperty(raw, 'recent_events');
      await this.doc.compact();
    }
  }
}

/** An event as earlier versions stored it in `recent_events` (checked loosely: it is only shown on the dashboard). */
function isStoredEvent(value: unknown): value is DomainEvent {
  return typeof value === 'object' && value !== null && typeof Reflect.get(value, 'id') === 'string' && typeof Reflect.get(value, 'type') === 'string';
}
