import { albumKey, isFromOrigins, isRetryLaterError, PreviewTrack, type Clock, type Logger, type MusicBrainz, type ReleaseGroup } from '@crateflow/sdk';
import { ConcurrencyLimit } from '../concurrency/concurrency-limit.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { UpstreamUnavailableError } from '../errors/upstream-unavailable-error.js';
import { ValidationError } from '../errors/validation-error.js';
import { musicBrainzUnavailable } from '../metadata/musicbrainz-unavailable.js';
import { creditOf } from '../metadata/release-group-fields.js';
import { guardPluginCall } from '../plugins/guard-plugin-call.js';
import { PluginError } from '../plugins/plugin-error.js';
import type { LoadedPluginOf, LoadedPlugins } from '../plugins/plugin-host.js';
import type { QueueTable } from '../queue/queue-table.js';
import { compileStrictOnFirstUse } from '../schema/ajv.js';
import type { WishlistTable } from '../wishlist/wishlist-table.js';
import { PreviewCache } from './preview-cache.js';
import type { Previews, PreviewsQuery } from './previews.schema.js';
import { PreviewsUnavailableError } from './previews-unavailable-error.js';

export interface PreviewServiceDeps {
  readonly plugins: LoadedPlugins;
  /** The provider's origins, checked (previewOriginsOf): a track from anywhere else would not play under the CSP. */
  readonly origins: readonly string[];
  /** Names an mbid the queue and wishlist do not know. */
  readonly musicbrainz: MusicBrainz;
  readonly queue: QueueTable;
  readonly wishlist: WishlistTable;
  readonly clock: Clock;
  readonly log: Logger;
  /** Aborted at shutdown; a provider still working is told to stop. */
  readonly signal: AbortSignal;
  readonly cacheTtlMs: number;
  readonly cacheMaxAlbums: number;
}

// Generous: the provider may page through a long album; a hung one must still not hold a request forever.
const PROVIDER_TIMEOUT_MS = 30_000;
// Without a hint from the provider: Deezer's quota window is 5 s; an outage takes longer.
const DEFAULT_RETRY_S = 5;
const FAILED_RETRY_S = 60;
const MAX_TRACKS = 500;
// Each album costs the provider a request or two, and a few people pressing play need no more; past a short queue a
// client flooding distinct albums gets 503 at once instead of spending the provider's quota for everyone.
const CONCURRENT_LOOKUPS = 4;
const QUEUED_LOOKUPS = 16;
const CONCURRENT_NAMINGS = 2;
const QUEUED_NAMINGS = 8;
const NAMING_BUSY_RETRY_S = 2;

interface Album {
  readonly artist: string;
  readonly album: string;
  readonly mbid: string | undefined;
}

/**
 * GET /previews: asks the configured preview provider for an album's previews, only when someone asks (the UI's
 * play button), and remembers the answer for a few minutes. An album named by mbid alone gets its artist and
 * title from the queue or wishlist item with that mbid, else from MusicBrainz (through the shared client and its
 * disk cache). Every track is checked against the PreviewTrack schema and the provider's origins; one that fails
 * either is dropped and logged.
 */
export class PreviewService {
  private readonly cache: PreviewCache<Previews>;
  private readonly trackValidator = compileStrictOnFirstUse<PreviewTrack>(PreviewTrack);
  private readonly limit = new ConcurrencyLimit({ concurrent: CONCURRENT_LOOKUPS, queued: QUEUED_LOOKUPS, refuse: () => PreviewsUnavailableError.busy() });
  // Naming an unknown mbid waits in MusicBrainz's pacing queue, which search and album panels share: bounded like
  // them, so a flood of previews of distinct mbids cannot hold search up (issue #27).
  private readonly naming = new ConcurrencyLimit({
    concurrent: CONCURRENT_NAMINGS, queued: QUEUED_NAMINGS, refuse: () => new UpstreamUnavailableError('MusicBrainz', NAMING_BUSY_RETRY_S, { busy: true }),
  });

  constructor(
    private readonly provider: LoadedPluginOf<'preview'> | undefined,
    private readonly deps: PreviewServiceDeps,
  ) {
    this.cache = new PreviewCache(deps.clock, deps.cacheTtlMs, deps.cacheMaxAlbums);
  }

  /** Where the configured provider's previews play from: the UI's CSP `media-src` lists exactly these. */
  get origins(): readonly string[] {
    return this.provider ? this.deps.origins : [];
  }

  async previews(query: PreviewsQuery): Promise<Previews> {
    const provider = this.provider;
    if (!provider) throw PreviewsUnavailableError.switchedOff();
    const album = await this.albumOf(query);
    return this.cache.get(albumKey(album.artist, album.album), () => this.limit.run(() => this.ask(provider, album)));
  }

  /** Provider lookups running and waiting now (for tests and reports). */
  get load(): { running: number; waiting: number } {
    return this.limit.load;
  }

  private async albumOf(query: PreviewsQuery): Promise<Album> {
    const mbid = query.mbid?.toLowerCase();
    if (query.artist !== undefined && query.album !== undefined) return { artist: query.artist, album: query.album, mbid };
    if (mbid === undefined) {
      const missing = query.artist === undefined && query.album !== undefined ? 'query.artist' : query.album === undefined && query.artist !== undefined ? 'query.album' : 'query.mbid';
      throw new ValidationError([{ path: missing, message: 'name the album: mbid, or artist and album' }]);
    }
    return this.localAlbum(mbid) ?? (await this.musicBrainzAlbum(mbid));
  }

  /** The pending queue item or wishlist item with this mbid, if it has an album title. */
  private localAlbum(mbid: string): Album | undefined {
    const { queue, wishlist } = this.deps;
    const pendingId = queue.findPending({ artist: '', mbid });
    const wantedId = wishlist.findWanted({ artist: '', mbid });
    const items = [pendingId === undefined ? undefined : queue.get(pendingId), wantedId === undefined ? undefined : wishlist.get(wantedId)];
    const item = items.find((candidate) => candidate?.mbid?.toLowerCase() === mbid && candidate.album !== undefined);
    return item?.album === undefined ? undefined : { artist: item.artist, album: item.album, mbid };
  }

  private async musicBrainzAlbum(mbid: string): Promise<Album> {
    const musicbrainz = this.deps.musicbrainz;
    let group: ReleaseGroup | undefined;
    try {
      group = await this.naming.run(() => musicbrainz.releaseGroup(mbid));
    } catch (err: unknown) {
      const unavailable = musicBrainzUnavailable(err);
      if (!unavailable) throw err;
      this.deps.log.warn({ err, mbid }, 'MusicBrainz could not be reached to name an album for its previews');
      throw unavailable;
    }
    if (!group) throw new NotFoundError('release group', mbid);
    return { artist: creditOf(group), album: group.title, mbid };
  }

  private async ask(provider: LoadedPluginOf<'preview'>, album: Album): Promise<Previews> {
    const { plugins, clock, log } = this.deps;
    // A lookup that waited for its turn while the server began shutting down does not start.
    if (this.deps.signal.aborted) throw PreviewsUnavailableError.later(provider.name, DEFAULT_RETRY_S);
    const signal = AbortSignal.any([this.deps.signal, AbortSignal.timeout(PROVIDER_TIMEOUT_MS)]);
    let answer: unknown;
    try {
      answer = await guardPluginCall(provider.name, 'findPreviews', PROVIDER_TIMEOUT_MS, () =>
        provider.instance.findPreviews({ artist: album.artist, album: album.album, ...(album.mbid ? { mbid: album.mbid } : {}), signal }),
      );
      plugins.noteSuccess(provider, new Date(clock.now()));
    } catch (err: unknown) {
      plugins.noteFailure(provider, err, new Date(clock.now()));
      const cause = err instanceof PluginError ? err.cause : err;
      if (isRetryLaterError(cause)) {
        const retryAfterS = Math.max(1, Math.ceil((cause.retryAfterMs ?? DEFAULT_RETRY_S * 1000) / 1000));
        log.warn({ err, plugin: provider.name, retry_after_s: retryAfterS }, 'the preview provider asks to try again later');
        throw PreviewsUnavailableError.later(provider.name, retryAfterS, { cause: err });
      }
      log.error({ err, plugin: provider.name, artist: album.artist, album: album.album }, 'the preview provider failed');
      throw PreviewsUnavailableError.later(provider.name, FAILED_RETRY_S, { cause: err });
    }
    return { artist: album.artist, album: album.album, ...(album.mbid ? { mbid: album.mbid } : {}), source: provider.name, tracks: this.checked(provider, answer) };
  }

  private checked(provider: LoadedPluginOf<'preview'>, answer: unknown): PreviewTrack[] {
    const listed: unknown[] = Array.isArray(answer) ? answer : [];
    const tracks = listed.filter((track): track is PreviewTrack => this.trackValidator()(track) && isFromOrigins(track.preview_url, this.deps.origins));
    if (!Array.isArray(answer) || tracks.length < listed.length) {
      this.deps.log.warn({ plugin: provider.name, answered: Array.isArray(answer) ? listed.length : typeof answer, kept: tracks.length },
        'the preview provider answered tracks that are not valid or not from its origins; they were left out');
    }
    return tracks.slice(0, MAX_TRACKS);
  }
}
