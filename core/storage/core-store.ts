import type { DomainEvent, EventType } from '@crateflow/sdk';
import { ServiceUnavailableError } from '../errors/service-unavailable-error.js';
import type { EventBus } from '../events/event-bus.js';
import type { CoreData } from './core-data.js';
import type { JsonDocument } from './json-document.js';
import { trackChanges, type DeepReadonly } from './track-changes.js';

export type Emit = (type: EventType, data: DomainEvent['data']) => void;

// Enough for the dashboard's activity list; the whole list is logged with each commit that adds to it.
const RECENT_EVENTS = 50;
// The keyed collections of CoreData: a change to one record is logged as that record alone.
const COLLECTIONS: ReadonlySet<string> = new Set<keyof CoreData>(['queue', 'wishlist', 'downloads', 'jobs', 'journal']);

/**
 * The domain's unit of work. `mutate()` runs a synchronous change against the data (so nothing interleaves),
 * journals the events it emits in the same commit, waits until the commit is on disk, and only then publishes
 * the events. Callers answer the HTTP request after `mutate()` resolves.
 *
 * Outside `mutate()` the data is deeply read-only (by type), so every change goes through a mutation, where
 * it is tracked and logged record by record.
 */
export class CoreStore {
  constructor(private readonly doc: JsonDocument<CoreData>, private readonly events: EventBus) {
    // Records are looked up by ids taken from URLs. Behind Object.prototype, an id like "toString" or
    // "__proto__" would find an inherited member instead of nothing (GET /jobs/toString answered 500, DELETE
    // /wishlist/constructor 204 with a wishlist_removed event for nobody). Without a prototype, a collection
    // holds only its own records.
    const data = doc.data;
    for (const collection of [data.queue, data.wishlist, data.downloads, data.jobs, data.journal]) Object.setPrototypeOf(collection, null);
  }

  get data(): DeepReadonly<CoreData> {
    return this.doc.data;
  }

  async mutate<T>(change: (data: CoreData, emit: Emit) => T): Promise<T> {
    const emitted: DomainEvent[] = [];
    let touched = false;
    const data = trackChanges(this.doc.data, COLLECTIONS, (field, key) => {
      touched = true;
      this.doc.touch(field as keyof CoreData, key); // field comes from CoreData's own keys
    });
    const result = change(data, (type, eventData) => emitted.push(this.events.record(type, eventData)));
    if (emitted.length > 0) {
      // On the raw data: these are fresh event objects, and the list is logged whole anyway.
      const recent = this.doc.data.recent_events;
      recent.push(...emitted);
      if (recent.length > RECENT_EVENTS) recent.splice(0, recent.length - RECENT_EVENTS);
      this.doc.touch('recent_events');
    }
    if (!touched && emitted.length === 0) return result;
    try {
      await this.doc.commit();
    } catch (err: unknown) {
      throw new ServiceUnavailableError('the change could not be saved; the data dir is not writable', { cause: err });
    }
    if (emitted.length > 0) this.events.publish(emitted);
    return result;
  }
}
