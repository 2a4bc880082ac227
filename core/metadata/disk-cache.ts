import type { Clock, Logger } from '@crateflow/sdk';
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface DiskCacheOptions {
  /** A directory of its own (e.g. `<data dir>/cache/musicbrainz`); created when missing. */
  readonly dir: string;
  readonly clock: Clock;
  readonly log: Logger;
  /** Oldest entries are deleted once the files together exceed this. */
  readonly maxBytes: number;
}

interface IndexEntry {
  bytes: number;
  storedAt: number;
}

const SUFFIX = '.json';

/**
 * A cache of JSON values on disk, one file per key, each with its own expiry. It is a cache, not data: a file that
 * is torn, damaged or unreadable is deleted and read as a miss, never an error, and losing the whole directory
 * only costs requests. Files are written whole to a temporary name and renamed, so a crash leaves either the old
 * entry or the new one (or a stray temporary file, removed at the next open).
 */
export class DiskCache {
  private total = 0;

  private constructor(
    private readonly options: DiskCacheOptions,
    private readonly index: Map<string, IndexEntry>,
  ) {
    for (const entry of index.values()) this.total += entry.bytes;
  }

  /** Opens the directory and measures what is already there, so the size bound holds across restarts. */
  static async open(options: DiskCacheOptions): Promise<DiskCache> {
    await mkdir(options.dir, { recursive: true });
    const index = new Map<string, IndexEntry>();
    for (const name of await readdir(options.dir)) {
      const path = join(options.dir, name);
      if (!name.endsWith(SUFFIX)) {
        await unlink(path).catch((err: unknown) => options.log.warn({ err, path }, 'could not remove a stray cache file; it is ignored'));
        continue;
      }
      const info = await stat(path);
      index.set(name, { bytes: info.size, storedAt: info.mtimeMs });
    }
    const cache = new DiskCache(options, index);
    await cache.evict();
    return cache;
  }

  /** The value stored under `key` if it has not expired. */
  async get(key: string): Promise<unknown> {
    const name = fileName(key);
    if (!this.index.has(name)) return undefined;
    const path = join(this.options.dir, name);
    let stored: unknown;
    try {
      stored = JSON.parse(await readFile(path, 'utf8'));
    } catch (err: unknown) {
      // Safe to continue: a damaged entry is only a missed cache hit; it is dropped and fetched again.
      this.options.log.warn({ err, path }, 'dropping an unreadable cache entry');
      await this.drop(name);
      return undefined;
    }
    if (!isEntry(stored) || stored.key !== key) {
      this.options.log.warn({ path }, 'dropping a cache entry that does not have the expected shape');
      await this.drop(name);
      return undefined;
    }
    if (stored.expiresAt <= this.options.clock.now()) return undefined;
    return stored.value;
  }

  /** Stores `value` under `key` for `ttlMs`. */
  async set(key: string, value: unknown, ttlMs: number): Promise<void> {
    const name = fileName(key);
    const now = this.options.clock.now();
    const text = JSON.stringify({ key, expiresAt: now + ttlMs, value });
    const path = join(this.options.dir, name);
    const temporary = `${path}.${randomUUID()}.tmp`;
    await writeFile(temporary, text);
    await rename(temporary, path);
    this.total -= this.index.get(name)?.bytes ?? 0;
    const bytes = Buffer.byteLength(text);
    this.index.delete(name);
    this.index.set(name, { bytes, storedAt: now });
    this.total += bytes;
    await this.evict();
  }

  /** Bytes the entries take on disk. */
  get sizeBytes(): number {
    return this.total;
  }

  private async evict(): Promise<void> {
    if (this.total <= this.options.maxBytes) return;
    const oldestFirst = [...this.index].sort((a, b) => a[1].storedAt - b[1].storedAt);
    for (const [name] of oldestFirst) {
      if (this.total <= this.options.maxBytes) break;
      await this.drop(name);
    }
  }

  private async drop(name: string): Promise<void> {
    this.total -= this.index.get(name)?.bytes ?? 0;
    this.index.delete(name);
    await unlink(join(this.options.dir, name)).catch((err: unknown) => {
      // Safe to continue: the entry is already forgotten in memory; a leftover file is re-measured at the next open.
      this.options.log.warn({ err, name }, 'could not delete a cache file');
    });
  }
}

/** Keys are URLs and may hold any character; the file name is their hash. */
function fileName(key: string): string {
  return createHash('sha256').update(key).digest('hex') + SUFFIX;
}

function isEntry(value: unknown): value is { key: string; expiresAt: number; value: unknown } {
  return typeof value === 'object' && value !== null && 'key' in value && typeof value.key === 'string' &&
    'expiresAt' in value && typeof value.expiresAt === 'number' && 'value' in value;
}
