import type { Clock } from '@crateflow/sdk';

const MAX_ENTRIES = 500;

/**
 * Which Deezer album an artist and title matched (or that none did), for a while, so listening to an album again
 * costs one request instead of two. Only the album id is kept: preview URLs are signed and expire 900 s after
 * Deezer answered (shared/reference/deezer-api.md §6, §7), so the tracks are fetched afresh every time the server
 * asks. Bounded; the oldest entry goes first.
 */
export class AlbumMatchCache {
  private readonly entries = new Map<string, { albumId: number | null; expiresAt: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly foundTtlMs: number,
    private readonly missingTtlMs: number,
  ) {}

  /** The album id, `null` for "no match", undefined when not known (or no longer). */
  get(key: string): number | null | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.clock.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.albumId;
  }

  set(key: string, albumId: number | null): void {
    this.entries.delete(key);
    this.entries.set(key, { albumId, expiresAt: this.clock.now() + (albumId === null ? this.missingTtlMs : this.foundTtlMs) });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= MAX_ENTRIES) break;
      this.entries.delete(oldest);
    }
  }

  forget(key: string): void {
    this.entries.delete(key);
  }
}
