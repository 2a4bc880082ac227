import type { Logger } from '@crateflow/sdk';
import { readdir, stat, unlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';

export interface CoverCacheBudgetOptions {
  /** The covers folder (data dir, cache/covers). */
  readonly dir: string;
  /** The most the folder may hold (`metadata.coverartarchive.cache_max_mb`). */
  readonly maxBytes: number;
  readonly log: Logger;
}

// A file takes at least a block on disk: counting a 13-byte missing-cover marker as 13 bytes would let a flood of
// unknown mbids fill the disk with "small" files.
const BLOCK = 4096;

/**
 * Keeps the covers folder under a size cap. Anyone can ask for any mbid, so without it a client walking through
 * MusicBrainz ids would fill the disk with thumbnails. Files are remembered in least-recently-served order; when a
 * new one pushes the total past the cap, the oldest go (the newest always stays, however large). The order
 * survives a restart through each file's modification time, which a served file has set to "now".
 */
export class CoverCacheBudget {
  /** Path → bytes on disk, oldest use first (a Map keeps insertion order; a use re-inserts). */
  private readonly files = new Map<string, number>();
  private total = 0;
  private readonly lastTouched = new Map<string, number>();

  private constructor(private readonly options: CoverCacheBudgetOptions) {}

  /** A budget that knows of no file yet (the folder could not be read): it counts what is stored from now on. */
  static empty(options: CoverCacheBudgetOptions): CoverCacheBudget {
    return new CoverCacheBudget(options);
  }

  /** Reads what the folder holds (a missing folder holds nothing), removes temporary files a crash left, and trims it. */
  static async open(options: CoverCacheBudgetOptions): Promise<CoverCacheBudget> {
    const budget = new CoverCacheBudget(options);
    let names: string[];
    try {
      names = await readdir(options.dir);
    } catch (err: unknown) {
      if (isMissingFile(err)) return budget;
      throw err;
    }
    const found: { path: string; bytes: number; used: number }[] = [];
    for (const name of names) {
      const path = join(options.dir, name);
      // A .tmp file is a write that a crash interrupted: never renamed, so nothing refers to it.
      if (name.endsWith('.tmp')) {
        await unlink(path).catch((err: unknown) => options.log.warn({ err, path }, 'could not remove an interrupted cover write; it stays'));
        continue;
      }
      const info = await stat(path).catch((err: unknown) => {
        if (isMissingFile(err)) return undefined; // removed meanwhile: nothing to count
        throw err;
      });
      if (info?.isFile()) found.push({ path, bytes: info.size, used: info.mtimeMs });
    }
    found.sort((a, b) => a.used - b.used);
    for (const file of found) budget.remember(file.path, file.bytes);
    await budget.trim();
    return budget;
  }

  /** Bytes the folder holds now, as counted against the cap. */
  get bytes(): number {
    return this.total;
  }

  /** A file was written: count it, then drop the least recently served files past the cap. */
  async stored(path: string, bytes: number): Promise<void> {
    const before = this.files.get(path);
    if (before !== undefined) {
      this.files.delete(path);
      this.total -= before;
    }
    this.remember(path, bytes);
    await this.trim();
  }

  /**
   * A file was served: it becomes the most recently used. Its modification time is set at most once an hour, so
   * the order survives a restart without a disk write per request.
   */
  served(path: string, now: number): void {
    const bytes = this.files.get(path);
    if (bytes === undefined) return;
    this.files.delete(path);
    this.files.set(path, bytes);
    if (now - (this.lastTouched.get(path) ?? 0) < 60 * 60 * 1000) return;
    this.lastTouched.set(path, now);
    const when = new Date(now);
    utimes(path, when, when).catch((err: unknown) => {
      // Only the order after a restart suffers (the file may have been evicted meanwhile).
      if (!isMissingFile(err)) this.options.log.warn({ err, path }, 'could not mark a cover as recently served');
    });
  }

  private remember(path: string, bytes: number): void {
    const counted = Math.max(BLOCK, Math.ceil(bytes / BLOCK) * BLOCK);
    this.files.set(path, counted);
    this.total += counted;
  }

  private async trim(): Promise<void> {
    while (this.total > this.options.maxBytes && this.files.size > 1) {
      const [path, bytes] = this.files.entries().next().value ?? [];
      if (path === undefined || bytes === undefined) return;
      this.files.delete(path);
      this.lastTouched.delete(path);
      this.total -= bytes;
      await unlink(path).catch((err: unknown) => {
        // Gone already is what eviction wants; anything else leaves a file the cap no longer counts, so say so.
        if (!isMissingFile(err)) this.options.log.warn({ err, path }, 'could not remove an evicted cover');
      });
    }
  }
}

function isMissingFile(err: unknown): boolean {
  return err instanceof Error && 'code' in err && err.code === 'ENOENT';
}
