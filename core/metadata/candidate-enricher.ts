import { isRetryLaterError, type Clock, type Logger, type MusicBrainz } from '@crateflow/sdk';
import type { QueueItem } from '../queue/queue-item.schema.js';
import { confidentMatch } from './confident-match.js';
import { coverUrlOf, yearOf } from './release-group-fields.js';

/** Where an item stands in the order pending items were added (added_at, then id). */
type Position = Pick<QueueItem, 'added_at' | 'id'>;

/** What the enricher needs of the queue: a walk over the pending items without an mbid, and a way to fill them. */
export interface EnrichableQueue {
  /** The item while it is pending, else undefined. */
  pendingItem(id: string): Readonly<QueueItem> | undefined;
  /** The oldest pending item without an mbid after `after`, or the oldest of all when `after` is undefined. */
  nextWithoutMbid(after: Position | undefined): Readonly<QueueItem> | undefined;
  completePending(id: string, fields: Pick<QueueItem, 'mbid' | 'year' | 'cover_url'>): Promise<unknown>;
}

export interface CandidateEnricherOptions {
  readonly musicbrainz: MusicBrainz;
  readonly queue: EnrichableQueue;
  readonly clock: Clock;
  readonly log: Logger;
  /** Aborted at shutdown: the worker stops and starts no further change. */
  readonly signal: AbortSignal;
  /** How long to wait when MusicBrainz keeps refusing (default 60 s). */
  readonly retryAfterMs?: number;
  /**
   * How long after new items arrive the worker starts on them (default 1 s): a burst of proposals is answered
   * before any lookup starts, so the requests that bring them never share the disk and network with it.
   */
  readonly settleMs?: number;
}

/** An album that the worker can look up: pending, with artist and album, without an mbid. */
export function needsEnrichment(item: Readonly<QueueItem>): boolean {
  return item.status === 'pending' && item.mbid === undefined && item.type === 'album' && item.album !== undefined;
}

/** Items passed over (tracks) before the walk lets other work run: it never holds the event loop for long. */
const SKIPS_PER_TURN = 100;

/**
 * Background enrichment of pending albums proposed without an mbid: they are stored at once (the request never
 * waits for MusicBrainz), and this worker later looks each up, one at a time, through the shared MusicBrainz
 * client. Only a confident match (see confidentMatch) sets mbid, year and cover_url, and only where the item has
 * none. The work list is the pending queue itself, walked in the order items were added from a position kept in
 * memory: nothing is read at start and nothing grows with the queue, and a restart walks it again from the start.
 * New items come after the position; an older one that becomes pending again (a restore) moves the position back.
 */
export class CandidateEnricher {
  /** The last item the walk has finished with; undefined: it starts from the oldest. */
  private position: Position | undefined;
  /** Counts moves of the position back, so a lookup that ends after one does not move it forward past them. */
  private rewinds = 0;
  /** Work may be left: from start until the walk finds nothing, and again once an item needing it is enqueued. */
  private active = false;
  private wake: (() => void) | undefined;
  private cancelSettle: (() => void) | undefined;
  private cancelDelay: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private changing: Promise<unknown> | undefined;
  private readonly idleWaiters: (() => void)[] = [];

  constructor(private readonly options: CandidateEnricherOptions) {
    options.signal.addEventListener('abort', () => this.interrupt(), { once: true });
  }

  /** Starts the worker on the pending queue: what a previous run left unenriched (or never got to) is in it. */
  start(): void {
    if (this.running || this.options.signal.aborted) return;
    this.active = true;
    this.running = this.work().catch((err: unknown) => {
      // A bug, not an outage (those are handled per item): enrichment is only a convenience, so the service goes on.
      this.options.log.error({ err }, 'the enrichment worker stopped');
    });
  }

  /** Tells the worker about items that may need enrichment (others are ignored); returns at once. */
  enqueue(items: Iterable<Readonly<QueueItem>>): void {
    let added = false;
    for (const item of items) {
      if (!needsEnrichment(item)) continue;
      added = true;
      // Behind the walk (restored with its old added_at): the walk goes back to just before it.
      if (this.position && compare(item, this.position) <= 0) {
        this.position = justBefore(item);
        this.rewinds++;
      }
    }
    if (!added) return;
    this.active = true;
    if (this.wake && !this.cancelSettle) {
      this.cancelSettle = this.options.clock.schedule(this.options.settleMs ?? 1000, () => {
        this.cancelSettle = undefined;
        this.interrupt();
      });
    }
  }

  /** Resolves when the walk has found nothing left and nothing is being looked up (tests, a drain before stopping). */
  idle(): Promise<void> {
    if (!this.active) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Waits for a change being saved, never for a lookup: shutdown must not wait up to a second per request in the
   * MusicBrainz queue. A lookup still running when the signal fired is dropped when it returns.
   */
  async stop(): Promise<void> {
    this.interrupt();
    await this.changing;
  }

  private async work(): Promise<void> {
    const { signal, queue } = this.options;
    let skipped = 0;
    while (!signal.aborted) {
      const item = queue.nextWithoutMbid(this.position);
      if (!item) {
        this.active = false;
        for (const resolve of this.idleWaiters.splice(0)) resolve();
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        continue;
      }
      if (!needsEnrichment(item)) {
        this.position = positionOf(item);
        if (++skipped % SKIPS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
        continue;
      }
      const rewinds = this.rewinds;
      const outcome = await this.enrich(item.id);
      if (outcome === 'later') await this.pause(this.options.retryAfterMs ?? 60_000);
      else if (rewinds === this.rewinds) this.position = positionOf(item);
    }
  }

  private async enrich(id: string): Promise<'done' | 'later'> {
    const { musicbrainz, queue, log, signal } = this.options;
    // Read again: the item may have been decided or completed while the walk waited.
    const item = queue.pendingItem(id);
    if (!item || !needsEnrichment(item) || item.album === undefined) return 'done';
    let hits;
    try {
      hits = await musicbrainz.searchReleaseGroups({ title: item.album, artist: item.artist, primaryType: 'album', limit: 10 });
    } catch (err: unknown) {
      if (signal.aborted) return 'done';
      if (isRetryLaterError(err)) {
        log.warn({ err, id }, 'MusicBrainz cannot be reached to enrich a queue item; trying again later');
        return 'later';
      }
      log.warn({ err, id }, 'a queue item could not be enriched; it stays as proposed');
      return 'done';
    }
    if (signal.aborted) return 'done';
    const match = confidentMatch(hits, item.artist, item.album);
    if (!match) {
      log.debug({ id, hits: hits.length }, 'no confident MusicBrainz match; the queue item stays as proposed');
      return 'done';
    }
    const year = yearOf(match);
    this.changing = queue.completePending(id, { mbid: match.mbid, ...(year === undefined ? {} : { year }), cover_url: coverUrlOf(match.mbid) });
    try {
      await this.changing;
    } catch (err: unknown) {
      // The store could not be written (a full disk answers 503 elsewhere): the item keeps its fields, and the next
      // start looks it up again.
      log.warn({ err, id }, 'an enriched queue item could not be saved');
    } finally {
      this.changing = undefined;
    }
    return 'done';
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const cancel = this.options.clock.schedule(ms, resolve);
      this.cancelDelay = () => {
        cancel();
        resolve();
      };
    });
  }

  private interrupt(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
    if (this.options.signal.aborted) {
      this.cancelSettle?.();
      this.cancelSettle = undefined;
      this.cancelDelay?.();
      this.cancelDelay = undefined;
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }
}

/** Only what the walk compares, so the position does not hold on to a whole record. */
function positionOf(item: Readonly<QueueItem>): Position {
  return { added_at: item.added_at, id: item.id };
}

/** The order of the walk: added_at, then id. */
function compare(a: Position, b: Position): number {
  if (a.added_at !== b.added_at) return a.added_at < b.added_at ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** A position the walk's next step from which is `item` or one added at the same moment (ids are never empty). */
function justBefore(item: Position): Position {
  return { added_at: item.added_at, id: '' };
}
