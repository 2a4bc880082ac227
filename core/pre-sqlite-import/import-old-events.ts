import type { DomainEvent } from '@crateflow/sdk';
import type { EventLogTable } from '../events/event-log-table.js';
import type { ImportCounts } from './import-counts.js';
import type { OldCoreData } from './old-core-data.js';

/**
 * Events (inside the import's change): the journal's entries (events some sink had yet to take, with those sinks)
 * and the dashboard's latest events become one sequence of the event log. Events only the journal holds are older
 * than the latest 50 (every event is on the dashboard list when it happens), so they come first, in the order the
 * old engine resent them (by timestamp), then the latest ones in their order, each with the sinks it still owes.
 */
export function importOldEvents(core: OldCoreData, events: EventLogTable, counts: ImportCounts): void {
  const owed = new Map<string, string[]>();
  for (const { event, pending } of core.journal) if (pending.length > 0) owed.set(event.id, [...new Set(pending)]);
  const recentIds = new Set(core.recent.map((event) => event.id));
  const olderOwed = core.journal
    .filter(({ event }) => owed.has(event.id) && !recentIds.has(event.id))
    .map(({ event }) => event)
    .sort((a, b) => byCodeUnits(a.timestamp ?? '', b.timestamp ?? ''));
  const record = (event: DomainEvent) => {
    const sinks = owed.get(event.id) ?? [];
    events.record(event, sinks);
    counts.events++;
    counts.undelivered += sinks.length;
  };
  for (const event of olderOwed) record(event);
  for (const event of core.recent) record(event);
}

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
