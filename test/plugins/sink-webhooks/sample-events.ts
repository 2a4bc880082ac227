import type { DomainEvent } from '@crateflow/sdk';

let counter = 0;

/** A domain event as the event bus hands it over, with a fresh id unless one is given. */
export function sampleEvent(type: DomainEvent['type'], overrides: Partial<DomainEvent> = {}): DomainEvent {
  counter++;
  return {
    id: `ev_${process.pid}_${counter}`,
    type,
    timestamp: '2026-03-18T12:00:00.000Z',
    data: {
      artist: 'Low',
      album: 'Things We Lost in the Fire',
      mbid: 'b1e1c5b4-5a8f-4a4a-9d8e-0c6c6e1f8f00',
      download_path: '/music/in/Low/Things We Lost in the Fire',
      id: 'q_123',
    },
    ...overrides,
  };
}
