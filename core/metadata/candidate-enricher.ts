import { isRetryLaterError, type Clock, type Logger, type MusicBrainz } from '@crateflow/sdk';
import type { QueueItem } from '../queue/queue-item.schema.js';
import { confidentMatch } from './confident-match.js';
import { coverUrlOf, yearOf } from './release-group-fields.js';

/** What the enricher needs of the queue: the pending items, and a way to fill the fields one lacks. */
export interface EnrichableQueue {
  /** The item while it is pending, else undefined. */
  pendingItem(id: string): Readonly<QueueItem> | undefined;
  /** The pending items that may need enrichment (at least every one without an mbid): the work left at start. */
  pendingItems(): Iterable<Readonly<QueueItem>>;
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

/**
 * Background enrichment of pending albums proposed without an mbid: they are stored at once (the request never
 * waits for MusicBrainz), and this worker later looks each up, one at a time, through the shared MusicBrainz
 * client. Only a confident match (see confidentMatch) sets mbid, year and cover_url, and only where the item has
 * none. The work list is the pending queue itself, scanned at start, so a restart picks up what was left; it
 * holds at most one id per pending item, which `storage.max_items` bounds.
 */
export class CandidateEnricher {
  private readonly waiting = new Set<string>();
  private wake: (() => void) | undefined;
  private cancelSettle: (() => void) | undefined;
  private cancelDelay: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private changing: Promise<unknown> | undefined;
  private readonly idleWaiters: (() => void)[] = [];
  private busy = false;

  constructor(private readonly options: CandidateEnricherOptions) {
    options.signal.addEventListener('abort', () => this.interrupt(), { once: true });
  }

  /** Queues every pending item that needs enrichment and starts the worker. */
  start(): void {
    if (this.running || this.options.signal.aborted) return;
    this.running = this.work().catch((err: unknown) => {
      // A bug, not an outage (those are handled per item): enrichment is only a convenience, so the service goes on.
      this.options.log.error({ err }, 'the enrichment worker stopped');
    });
    // What a previous run left unenriched (or never got to) is the pending queue itself.
    this.enqueue(this.options.queue.pendingItems());
  }

  /** Queues items that need enrichment (others are ignored); returns at once. */
  enqueue(items: Iterable<Readonly<QueueItem>>): void {
    let added = false;
    for (const item of items) {
      if (!needsEnrichment(item) || this.waiting.has(item.id)) continue;
      this.waiting.add(item.id);
      added = true;
    }
    if (added && this.wake && !this.cancelSettle) {
      this.cancelSettle = this.options.clock.schedule(this.options.settleMs ?? 1000, () => {
        this.cancelSettle = undefined;
        this.interrupt();
      });
    }
  }

  /** Resolves when nothing is waiting and nothing is being looked up (tests, and a drain before stopping). */
  idle(): Promise<void> {
    if (this.waiting.size === 0 && !this.busy) return Promise.resolve();
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
    const { signal } = this.options;
    while (!signal.aborted) {
      const id = this.waiting.values().next().value;
      if (id === undefined) {
        this.busy = false;
        for (const resolve of this.idleWaiters.splice(0)) resolve();
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        continue;
      }
      this.busy = true;
      const outcome = await this.enrich(id);
      if (outcome === 'later') await this.pause(this.options.retryAfterMs ?? 60_000);
      else this.waiting.delete(id);
    }
  }

  private async enrich(id: string): Promise<'done' | 'later'> {
    const { musicbrainz, queue, log, signal } = this.options;
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
