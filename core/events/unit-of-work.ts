import type { DomainEvent, EventType } from '@crateflow/sdk';
import type { Store } from '../storage/store.js';
import type { EventBus } from './event-bus.js';

export type Emit = (type: EventType, data: DomainEvent['data']) => void;

/**
 * The domain's unit of work: a synchronous change of the tables and the events it fires, in one transaction. The
 * events go into the outbox in that transaction and are published only once it is on disk, so an acknowledged
 * change always has its events (even across kill -9) and an undone one never announces anything.
 */
export class UnitOfWork {
  constructor(private readonly store: Store, private readonly events: EventBus) {}

  mutate<T>(change: (emit: Emit) => T): Promise<T> {
    return this.store.change(({ afterCommit }) => {
      const emitted: DomainEvent[] = [];
      const join = (work: () => void) => this.store.change(work);
      const result = change((type, data) => emitted.push(this.events.record(type, data, join)));
      if (emitted.length > 0) afterCommit(() => this.events.publish(emitted));
      return result;
    });
  }
}
