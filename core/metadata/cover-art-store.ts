import { HttpRequestError, RetryLaterError, type Clock, type HttpClient, type Logger } from '@crateflow/sdk';
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConcurrencyLimit } from '../concurrency/concurrency-limit.js';
import { followRedirects } from './follow-redirects.js';
import { IMAGE_TYPES, sniffImageType } from './sniff-image-type.js';

export type CoverSize = 250 | 500;

export interface StoredCover {
  /** Absolute path of the image file. */
  readonly path: string;
  /** From the file name, which comes from the bytes' magic numbers (never from an upstream header). */
  readonly contentType: string;
}

export interface CoverArtStoreOptions {
  /** The data dir; covers live in `<dataDir>/cache/covers`. */
  readonly dataDir: string;
  /** Every hop goes through it: build it with createUpstreamHttpClient, so redirects obey `metadata_policy`. */
  readonly http: HttpClient;
  readonly clock: Clock;
  readonly log: Logger;
  /** The same User-Agent as for MusicBrainz: harmless to the CAA, and it says who is asking. */
  readonly userAgent: string;
  /** Default `https://coverartarchive.org`. */
  readonly baseUrl?: string;
  /** How long "this release group has no front cover" is believed (default 3 days: editors add art). */
  readonly missingTtlMs?: number;
  /** Downloads at once (default 4). */
  readonly concurrency?: number;
  /** Downloads that may wait for a turn (default: no bound); one more is refused with `refuse()`. */
  readonly queued?: number;
  /** The error a fetch past the waiting queue gets at once. */
  readonly refuse?: () => Error;
  /** Told of every file written into the covers folder (images and missing-cover markers), e.g. to cap its size. */
  readonly onStored?: (path: string, bytes: number) => void;
  readonly timeoutMs?: number;
}

const MBID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DAY = 24 * 60 * 60 * 1000;

/**
 * Release-group front covers, fetched from the Cover Art Archive once and then served from disk, so pages never
 * hot-link coverartarchive.org (shared/reference/coverartarchive-api.md §6). Image bytes are kept indefinitely
 * (thumbnail files never change); a 404 is remembered for `missingTtlMs`, because art gets added. A cover is
 * fetched by one caller at a time, and downloads are limited to `concurrency`.
 */
export class CoverArtStore {
  private readonly dir: string;
  private readonly limit: ConcurrencyLimit;
  private readonly inFlight = new Map<string, Promise<StoredCover | 'none'>>();

  constructor(private readonly options: CoverArtStoreOptions) {
    this.dir = join(options.dataDir, 'cache', 'covers');
    this.limit = new ConcurrencyLimit({
      concurrent: options.concurrency ?? 4,
      ...(options.queued === undefined ? {} : { queued: options.queued }),
      ...(options.refuse === undefined ? {} : { refuse: options.refuse }),
    });
  }

  /** The folder the covers are stored in. */
  get directory(): string {
    return this.dir;
  }

  /** Downloads running and waiting now (for tests and reports). */
  get load(): { running: number; waiting: number } {
    return this.limit.load;
  }

  /** The front cover at `size` px, or 'none' when the release group has none (or the id is not an MBID). */
  async get(releaseGroupMbid: string, size: CoverSize): Promise<StoredCover | 'none'> {
    const mbid = releaseGroupMbid.trim().toLowerCase();
    // The CAA answers 400 to anything but a lower-case MBID (§2); such an id cannot have a cover.
    if (!MBID.test(mbid)) return 'none';
    const stored = await this.onDisk(mbid, size);
    if (stored) return stored;
    if (await this.knownMissing(mbid)) return 'none';
    const key = `${mbid}-${size}`;
    const running = this.inFlight.get(key);
    if (running) return running;
    const fetching = this.limit.run(() => this.fetch(mbid, size)).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, fetching);
    return fetching;
  }

  private async onDisk(mbid: string, size: CoverSize): Promise<StoredCover | undefined> {
    for (const { contentType, extension } of IMAGE_TYPES) {
      const path = join(this.dir, `${mbid}-${size}.${extension}`);
      if (await exists(path)) return { path, contentType };
    }
    return undefined;
  }

  private async knownMissing(mbid: string): Promise<boolean> {
    const path = this.missingPath(mbid);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err: unknown) {
      if (isMissingFile(err)) return false;
      throw err;
    }
    const until = Number(text.trim());
    if (Number.isFinite(until) && until > this.options.clock.now()) return true;
    // Expired, or a torn write: either way ask again.
    await unlink(path).catch((err: unknown) => this.options.log.warn({ err, path }, 'could not delete a missing-cover marker; it is ignored'));
    return false;
  }

  private async fetch(mbid: string, size: CoverSize): Promise<StoredCover | 'none'> {
    const url = `${this.options.baseUrl ?? 'https://coverartarchive.org'}/release-group/${mbid}/front-${size}`;
    let outcome;
    try {
      outcome = await followRedirects(this.options.http, {
        url, headers: { 'user-agent': this.options.userAgent }, timeoutMs: this.options.timeoutMs ?? 20_000, maxResponseBytes: 5 * 1024 * 1024,
      });
    } catch (err: unknown) {
      if (err instanceof HttpRequestError && err.reason !== 'refused-address') throw new RetryLaterError(`cover for ${mbid} could not be fetched: ${err.message}`, { cause: err });
      throw err;
    }
    const { response } = outcome;
    // A 404 from the CAA means no front art; a 404 from the storage node behind it means the file is missing there
    // (§5). Both mean "nothing to show" for now.
    if (response.status === 404) {
      await this.rememberMissing(mbid);
      return 'none';
    }
    // The bytes decide, not the Content-Type: an HTML page or a script served as a cover would run in the browser.
    const type = response.status === 200 ? sniffImageType(response.body) : undefined;
    if (!type) {
      const said = response.headers['content-type'] ?? 'no content type';
      throw new RetryLaterError(`cover for ${mbid} answered ${response.status} (${said}) at ${outcome.url}${response.status === 200 ? ', and the bytes are not an image' : ''}`);
    }
    const path = join(this.dir, `${mbid}-${size}.${type.extension}`);
    await this.writeWhole(path, response.body);
    return { path, contentType: type.contentType };
  }

  private async rememberMissing(mbid: string): Promise<void> {
    await this.writeWhole(this.missingPath(mbid), Buffer.from(String(this.options.clock.now() + (this.options.missingTtlMs ?? 3 * DAY))));
  }

  /** Written to a temporary name and renamed, so a reader never sees half an image. */
  private async writeWhole(path: string, bytes: Buffer): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const temporary = `${path}.${randomUUID()}.tmp`;
    await writeFile(temporary, bytes);
    await rename(temporary, path);
    this.options.onStored?.(path, bytes.length);
  }

  private missingPath(mbid: string): string {
    return join(this.dir, `${mbid}.missing`);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch (err: unknown) {
    if (isMissingFile(err)) return false;
    throw err;
  }
}

function isMissingFile(err: unknown): boolean {
  return err instanceof Error && 'code' in err && err.code === 'ENOENT';
}
