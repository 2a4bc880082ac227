import type { DomainEvent, EventType } from '@crateflow/sdk';
import { ServiceUnavailableError } from '../errors/service-unavailable-error.js';
import type { EventBus } from '../events/event-bus.js';
import type { CoreData } from './core-data.js';
import type { JsonDocument } from './json-document.js';

export type Emit = (type: EventType, data: DomainEvent['data']) => void;

const RECENT_EVENTS = 100;

/**
 * The domain's unit of work. `mutate()` runs a synchronous change against the data (so nothing interleaves),
 * journals the events it emits in the same commit, waits until the commit is on disk, and only then publishes
 * the events. Callers answer the HTTP request after `mutate()` resolves.
 */
export class CoreStore {
  constructor(private readonly doc: JsonDocument<CoreData>, private readonly events: EventBus) {}

  get data(): Readonly<CoreData> {
    return this.doc.data;
  }

  async mutate<T>(change: (data: CoreData, emit: Emit) => T): Promise<T> {
    const emitted: DomainEvent[] = [];
    const data = this.doc.data;
    const result = change(data, (type, eventData) => emitted.push(this.events.record(type, eventData)));
    if (emitted.length > 0) {
      data.recent_events.push(...emitted);
      if (data.recent_events.length > RECENT_EVENTS) data.recent_events.splice(0, data.recent_events.length - RECENT_EVENTS);
    }
    try {
      await this.doc.commit();
    } catch (err: unknown) {
      throw new ServiceUnavailableError('the change could not be saved; the data dir is not writable', { cause: err });
    }
    if (emitted.length > 0) this.events.publish(emitted);
    return result;
  }
}
