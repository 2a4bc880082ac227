import type { DomainEvent, EventType } from '@crateflow/sdk';
import { EventBus } from '../../core/events/event-bus.js';
import type { StartedApp } from './start-app.js';

export interface EventRecorder {
  /** Every event published since the recorder started (or since `clear()`), in order. */
  readonly events: DomainEvent[];
  /** The `data` of each recorded event of one type, in order. */
  dataOf(type: EventType): DomainEvent['data'][];
  clear(): void;
  stop(): void;
}

/** Records the app's committed domain events through its EventBus, as an in-process listener (the UI) sees them. */
export function recordEvents(app: StartedApp): EventRecorder {
  const events: DomainEvent[] = [];
  const unsubscribe = app.crateflow.container.resolve(EventBus).subscribe((event) => events.push(event));
  return {
    events,
    dataOf: (type) => events.filter((e) => e.type === type).map((e) => e.data),
    clear: () => events.splice(0, events.length),
    stop: () => {
      unsubscribe();
    },
  };
}
