import { arrayField, isRecord, numberField, stringField, type PluginStorage } from '@crateflow/sdk';
import type { Seed } from './similarity-tally.js';

/**
 * An unfinished run in the plugin's storage: its seeds in order, how many are done, and the albums yielded.
 * The similar-artist lists of done seeds sit in the storage cache, so a resumed run rebuilds its tally from there
 * without a request and carries on at seed `next`. Removed when a run completes.
 */
export interface SimilarArtistsRun {
  /** `library` or `listenbrainz:<user>`: a run of other seeds is not resumed. */
  readonly origin: string;
  readonly seeds: readonly Seed[];
  next: number;
  readonly emitted: string[];
}

const KEY = 'run';

export class SimilarArtistsCursor {
  constructor(private readonly storage: PluginStorage) {}

  load(origin: string): SimilarArtistsRun | undefined {
    const stored = this.storage.get(KEY);
    if (!isRecord(stored) || stringField(stored, 'origin') !== origin) return undefined;
    const seeds = arrayField(stored, 'seeds').filter(isRecord).flatMap((item) => {
      const name = stringField(item, 'name');
      return name ? [{ name, mbid: stringField(item, 'mbid') ?? null }] : [];
    });
    const emitted = arrayField(stored, 'emitted').filter((mbid): mbid is string => typeof mbid === 'string');
    return { origin, seeds, next: Math.min(numberField(stored, 'next') ?? 0, seeds.length), emitted };
  }

  async save(run: SimilarArtistsRun): Promise<void> {
    await this.storage.set(KEY, { origin: run.origin, seeds: run.seeds.map((seed) => ({ ...seed })), next: run.next, emitted: [...run.emitted] });
  }

  async clear(): Promise<void> {
    await this.storage.delete(KEY);
  }
}
