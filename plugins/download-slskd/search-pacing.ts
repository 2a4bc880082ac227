import type { Clock, PluginStorage } from '@crateflow/sdk';

const LAST_SEARCH_KEY = 'pacing/last_search_at';

/**
 * Keeps Crateflow's searches at least `search.min_interval_ms` apart, across all downloads and across restarts
 * (the last start time is kept in plugin storage). Soulseek's server bans an account for about 30 minutes when
 * searches repeat too fast (slskd-api.md §4), and seven wanted albums approved at once would otherwise be seven
 * searches in the same second.
 */
export class SearchPacing {
  constructor(
    private readonly storage: PluginStorage,
    private readonly clock: Clock,
    private readonly minIntervalMs: number,
  ) {}

  /** Milliseconds until the next search may start; 0 when one may start now. */
  waitMs(): number {
    const last = this.storage.get<number>(LAST_SEARCH_KEY);
    if (last === undefined) return 0;
    const now = this.clock.now();
    // A clock that went backwards (host time corrected) must not block searches until it catches up.
    if (last > now) return 0;
    return Math.max(0, last + this.minIntervalMs - now);
  }

  /** Records a search start; call before the POST, so a crash right after it still counts. */
  note(): Promise<void> {
    return this.storage.set(LAST_SEARCH_KEY, this.clock.now());
  }
}
