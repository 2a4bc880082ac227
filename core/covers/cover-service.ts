import { HttpRequestError, isRetryLaterError, type Clock, type Logger } from '@crateflow/sdk';
import { readFile, unlink } from 'node:fs/promises';
import type { MetadataConfig } from '../config/app-config.schema.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { ServiceUnavailableError } from '../errors/service-unavailable-error.js';
import { UpstreamUnavailableError } from '../errors/upstream-unavailable-error.js';
import { CoverArtStore, type CoverSize } from '../metadata/cover-art-store.js';
import { sniffImageType } from '../metadata/sniff-image-type.js';
import type { OutboundAddressPolicy } from '../net/outbound-address-policy.js';
import { createUpstreamHttpClient } from '../net/upstream-http-client.js';
import { metadataUserAgent } from '../metadata/metadata-user-agent.js';
import { CoverCacheBudget } from './cover-cache-budget.js';

export interface CoverImage {
  readonly bytes: Buffer;
  readonly contentType: string;
}

export interface CoverServiceOptions {
  readonly metadata: MetadataConfig;
  readonly dataDir: string;
  readonly version: string;
  readonly clock: Clock;
  readonly log: Logger;
  /** `metadata_policy`: every hop past `metadata.coverartarchive.url`'s own origin is judged by it. */
  readonly addressPolicy: OutboundAddressPolicy;
}

// Downloads at once, and how many more may wait: beyond that a flood of distinct mbids is refused (503) at once
// instead of holding a connection each while it waits its turn.
const CONCURRENT_FETCHES = 4;
const WAITING_FETCHES = 32;
const RETRY_AFTER_S = 30;

/**
 * Front covers for GET /covers/{mbid}: fetched from the Cover Art Archive once, stored in the data dir under a
 * size cap, and served from there. Its User-Agent is the one MusicBrainz gets (metadataUserAgent), though the
 * Cover Art Archive asks nothing of it.
 */
export class CoverService {
  /** Use {@link CoverService.open}. (Public only because the DI container names the class.) */
  constructor(
    private readonly store: CoverArtStore,
    private readonly budget: Promise<CoverCacheBudget>,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly closeHttp: () => Promise<void>,
  ) {}

  static async open(options: CoverServiceOptions): Promise<CoverService> {
    const userAgent = metadataUserAgent(options.version, options.metadata.contact);
    const http = createUpstreamHttpClient({
      userAgent, defaultTimeoutMs: 20_000, connectionsPerOrigin: CONCURRENT_FETCHES,
      policy: options.addressPolicy, upstreams: [options.metadata.coverartarchive.url],
    });
    let budget: Promise<CoverCacheBudget> | undefined;
    const store = new CoverArtStore({
      dataDir: options.dataDir,
      http,
      clock: options.clock,
      log: options.log,
      userAgent,
      baseUrl: options.metadata.coverartarchive.url.replace(/\/+$/, ''),
      concurrency: CONCURRENT_FETCHES,
      queued: WAITING_FETCHES,
      refuse: () => new UpstreamUnavailableError('Cover Art Archive', 1, { busy: true }),
      onStored: (path, bytes) => {
        budget?.then((known) => known.stored(path, bytes)).catch((err: unknown) => options.log.warn({ err, path }, 'could not trim the covers folder; it is tried again at the next stored cover'));
      },
    });
    // The folder is read in the background: a cache of many thousand covers would otherwise hold up every start.
    // Covers stored meanwhile are counted once it is read; the cap then trims what is over it.
    const budgetOptions = { dir: store.directory, maxBytes: options.metadata.coverartarchive.cache_max_mb * 1024 * 1024, log: options.log };
    budget = CoverCacheBudget.open(budgetOptions).catch((err: unknown) => {
      options.log.error({ err, dir: store.directory }, 'could not read the covers folder: only covers stored from now on count towards its cap');
      return CoverCacheBudget.empty(budgetOptions);
    });
    return new CoverService(store, budget, options.clock, options.log, () => http.close());
  }

  /**
   * The release group's front cover at `size`: 404 when it has none, 503 when the archive cannot be reached, a hop
   * was refused by `metadata_policy` or the bytes are not an image. The content type comes from the bytes.
   */
  async image(releaseGroupMbid: string, size: CoverSize): Promise<CoverImage> {
    const mbid = releaseGroupMbid.toLowerCase();
    // Twice at most: the file can be evicted between being found and being read, and the second time fetches it.
    for (let attempt = 1; ; attempt++) {
      const stored = await this.store.get(mbid, size).catch((err: unknown) => {
        if (err instanceof UpstreamUnavailableError) throw err;
        if (isRetryLaterError(err) || err instanceof HttpRequestError) {
          this.log.warn({ err, mbid }, 'the Cover Art Archive could not be reached');
          throw new UpstreamUnavailableError('Cover Art Archive', RETRY_AFTER_S, { cause: err });
        }
        // The covers folder cannot be written (a full disk, a read-only mount): the cover cannot be kept, which is
        // the server's trouble to report (503, logged), not a bug behind a 500 (issue #27).
        if (isFileSystemError(err)) throw new ServiceUnavailableError('covers cannot be stored right now: the data dir is full or not writable', { cause: err });
        throw err;
      });
      if (stored === 'none') throw new NotFoundError('front cover of release group', mbid);
      try {
        const bytes = await readFile(stored.path);
        const type = sniffImageType(bytes);
        if (!type) {
          // Stored before the bytes were checked (a page served as image/jpeg): dropped, and fetched again once.
          this.log.warn({ mbid, path: stored.path }, 'a stored cover is not an image; it is deleted');
          await unlink(stored.path);
          if (attempt >= 2) throw new UpstreamUnavailableError('Cover Art Archive', RETRY_AFTER_S);
          continue;
        }
        const servedAt = this.clock.now();
        void this.budget.then((known) => known.served(stored.path, servedAt));
        return { bytes, contentType: type.contentType };
      } catch (err: unknown) {
        if (attempt >= 2 || !(err instanceof Error && 'code' in err && err.code === 'ENOENT')) throw err;
      }
    }
  }

  async close(): Promise<void> {
    await this.budget; // the folder's reading finishes before the data dir is let go
    await this.closeHttp();
  }
}

/** An error of a file system call (it names the call: open, write, rename…), such as ENOSPC or EROFS. */
function isFileSystemError(err: unknown): boolean {
  return err instanceof Error && 'syscall' in err && typeof err.syscall === 'string' && 'code' in err && typeof err.code === 'string';
}
