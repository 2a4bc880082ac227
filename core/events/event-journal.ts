import type { DomainEvent } from '@crateflow/sdk';

/**
 * An event waiting for sinks. It is written in the same commit as the change that caused it (a transactional
 * outbox), so an acknowledged change always has its event, even across kill -9; `pending` lists the sinks that
 * have not taken it yet.
 */
export interface JournalEntry {
  event: DomainEvent;
  pending: string[];
}

export type EventJournal = Record<string, JournalEntry>;
