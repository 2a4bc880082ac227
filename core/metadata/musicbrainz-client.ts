import { arrayField, isRecord, numberField, type Clock, type HttpClient, type Logger } from '@crateflow/sdk';
import { join } from 'node:path';
import { DiskCache } from './disk-cache.js';
import { lucenePhrase } from './lucene-phrase.js';
import type { Artist, ArtistHit, MusicBrainz, RecordingReleaseGroups, ReleaseGroup, ReleaseGroupHit, ReleaseGroupQuery, Tracklist } from '@crateflow/sdk';
import { metadataUserAgent } from './metadata-user-agent.js';
import { MusicBrainzRequester } from './musicbrainz-requester.js';
import { readArtist, readArtistHit, readRecordingReleaseGroups, readReleaseGroup, readReleaseGroupHit } from './read-musicbrainz-json.js';
import { chooseTracklistRelease, readTracklist } from './read-musicbrainz-tracklist.js';
import { RequestPacer } from './request-pacer.js';
import { byCodeUnits } from '../sorting/code-unit-order.js';
import { DEFAULT_METADATA_POLICY } from '../net/metadata-policy.schema.js';
import { OutboundAddressPolicy } from '../net/outbound-address-policy.js';
import { createUpstreamHttpClient } from '../net/upstream-http-client.js';

export interface MusicBrainzClientOptions {
  /** Crateflow's version (core/version.ts). */
  readonly version: string;
  /** The operator's address (config key `metadata.contact`), optional: the User-Agent always names the project. */
  readonly contact?: string;
  /** The data dir; the cache lives in `<dataDir>/cache/musicbrainz`. */
  readonly dataDir: string;
  readonly clock: Clock;
  readonly log: Logger;
  /** Default `https://musicbrainz.org`. */
  readonly baseUrl?: string;
  /** Default 1000: MusicBrainz allows 1 request/s on average per source address. */
  readonly minIntervalMs?: number;
  readonly maxAttempts?: number;
  readonly timeoutMs?: number;
  /** Default 64 MiB. */
  readonly cacheMaxBytes?: number;
  /** Default: a client of its own, which connects only where `addressPolicy` allows. */
  readonly http?: HttpClient;
  /** `metadata_policy` for the client of its own (default: its defaults); `baseUrl`'s own origin is always reachable. */
  readonly addressPolicy?: OutboundAddressPolicy;
}

const MBID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PAGE = 100;

/**
 * The one MusicBrainz client of a Crateflow instance. Every caller shares its pacing queue, User-Agent and disk
 * cache, which is what MusicBrainz's etiquette asks of an application (shared/reference/musicbrainz-api.md §1, §2).
 * An id that is not a lower-case MBID (case is folded) answers `undefined` without a request.
 */
export class MusicBrainzClient implements MusicBrainz {
  private constructor(
    private readonly requester: MusicBrainzRequester,
    private readonly closeHttp: () => Promise<void>,
  ) {}

  static async open(options: MusicBrainzClientOptions): Promise<MusicBrainzClient> {
    // §1: the User-Agent must let MusicBrainz contact the maintainer; without it requests are throttled or dropped.
    const userAgent = metadataUserAgent(options.version, options.contact);
    // One connection: requests are a second apart anyway, and keep-alive saves a TLS handshake per request.
    let http = options.http;
    let closeHttp = async (): Promise<void> => {};
    if (!http) {
      const own = createUpstreamHttpClient({
        userAgent, defaultTimeoutMs: options.timeoutMs ?? 20_000, connectionsPerOrigin: 1,
        policy: options.addressPolicy ?? OutboundAddressPolicy.from(DEFAULT_METADATA_POLICY, 'metadata_policy'), upstreams: [options.baseUrl ?? 'https://musicbrainz.org'],
      });
      http = own;
      closeHttp = () => own.close();
    }
    const cache = await DiskCache.open({ dir: join(options.dataDir, 'cache', 'musicbrainz'), clock: options.clock, log: options.log, maxBytes: options.cacheMaxBytes ?? 64 * 1024 * 1024 });
    const requester = new MusicBrainzRequester({
      http, clock: options.clock, log: options.log, cache,
      pacer: new RequestPacer(options.clock, options.minIntervalMs ?? 1000), baseUrl: options.baseUrl ?? 'https://musicbrainz.org', userAgent,
      ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    });
    return new MusicBrainzClient(requester, closeHttp);
  }

  async searchReleaseGroups(query: ReleaseGroupQuery): Promise<ReleaseGroupHit[]> {
    const title = lucenePhrase(query.title);
    // A bare search box text may name the album or the artist (§6.3 fields: `releasegroup` is the title, `artist`
    // the credit). The artist clause is boosted so an artist's own groups are among the first page, not crowded out
    // by the many groups whose title merely contains the word ("Low" the band, not only "Low Life").
    const terms = [query.orArtist && query.artist === undefined ? `(releasegroup:${title} OR artist:${title}^2)` : `releasegroup:${title}`];
    if (query.artist !== undefined) terms.push(`artist:${lucenePhrase(query.artist)}`);
    if (query.primaryType !== undefined) terms.push(`primarytype:${lucenePhrase(query.primaryType.toLowerCase())}`);
    const limit = Math.min(100, Math.max(1, query.limit ?? 25));
    const body = await this.requester.get('search', 'release-group', { query: terms.join(' AND '), limit: String(limit) });
    return arrayField(body ?? {}, 'release-groups').filter(isRecord).flatMap((hit) => readReleaseGroupHit(hit) ?? []);
  }

  /**
   * All pages of the browse, ordered by first release date (unknown last), then title: MusicBrainz re-sorts each
   * page by MBID, so its order means nothing across pages (§4). Each group carries its whole artist credit
   * ("A & B"): a browse lists collaborations under each credited artist (§6.2), but sends the credit only when
   * asked with `inc=artist-credits` (§5, `Serializer/ReleaseGroup.pm`). The inc is part of the URL, so part of the
   * cache key: answers cached without credits are never read back as if they had them.
   */
  async releaseGroupsOfArtist(artistMbid: string, types: readonly string[] = []): Promise<ReleaseGroup[] | undefined> {
    const artist = mbid(artistMbid);
    if (!artist) return undefined;
    const groups: ReleaseGroup[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const params: Record<string, string> = { artist, inc: 'artist-credits', limit: String(PAGE), offset: String(offset) };
      if (types.length > 0) params['type'] = types.map((type) => type.toLowerCase()).join('|');
      const body = await this.requester.get('artistReleaseGroups', 'release-group', params);
      if (!body) return offset === 0 ? undefined : groups;
      const page = arrayField(body, 'release-groups').filter(isRecord);
      groups.push(...page.flatMap((item) => readReleaseGroup(item) ?? []));
      if (page.length === 0 || offset + PAGE >= (numberField(body, 'release-group-count') ?? 0)) break;
    }
    return groups.sort((a, b) => byCodeUnits(a.firstReleaseDate ?? '~', b.firstReleaseDate ?? '~') || a.title.localeCompare(b.title));
  }

  async releaseGroup(releaseGroupMbid: string): Promise<ReleaseGroup | undefined> {
    const id = mbid(releaseGroupMbid);
    const body = id ? await this.requester.get('releaseGroup', `release-group/${id}`, { inc: 'artist-credits' }) : undefined;
    return body && readReleaseGroup(body);
  }

  async recordingReleaseGroups(recordingMbid: string): Promise<RecordingReleaseGroups | undefined> {
    const id = mbid(recordingMbid);
    const body = id ? await this.requester.get('recording', `recording/${id}`, { inc: 'artist-credits+releases+release-groups' }) : undefined;
    return body && readRecordingReleaseGroups(body);
  }

  async searchArtists(name: string, limit = 5): Promise<ArtistHit[]> {
    // The `artist:` field: a bare query also matches aliases and sort names (§6.5).
    const body = await this.requester.get('search', 'artist', { query: `artist:${lucenePhrase(name)}`, limit: String(Math.min(100, Math.max(1, limit))) });
    return arrayField(body ?? {}, 'artists').filter(isRecord).flatMap((hit) => readArtistHit(hit) ?? []);
  }

  async artist(artistMbid: string): Promise<Artist | undefined> {
    const id = mbid(artistMbid);
    const body = id ? await this.requester.get('artist', `artist/${id}`, {}) : undefined;
    return body && readArtist(body);
  }

  /**
   * Two requests when not cached: the group's releases with their media (one browse page of 100 releases, which
   * covers all but a handful of groups), then the chosen release with its recordings (§4, §5).
   */
  async releaseGroupTracklist(releaseGroupMbid: string): Promise<Tracklist | undefined> {
    const id = mbid(releaseGroupMbid);
    if (!id) return undefined;
    const browse = await this.requester.get('groupReleases', 'release', { 'release-group': id, inc: 'media', limit: String(PAGE) });
    if (!browse) return undefined;
    const releaseId = chooseTracklistRelease(arrayField(browse, 'releases').filter(isRecord));
    if (!releaseId) return { releaseMbid: undefined, tracks: [] };
    const release = await this.requester.get('release', `release/${releaseId}`, { inc: 'recordings' });
    return (release && readTracklist(release)) ?? { releaseMbid: releaseId, tracks: [] };
  }

  /** Closes the HTTP client the instance made for itself (not one passed in). */
  close(): Promise<void> {
    return this.closeHttp();
  }
}

/** MusicBrainz answers 400 for anything but a lower-case UUID in some places; fold case, refuse the rest. */
function mbid(value: string): string | undefined {
  const folded = value.trim().toLowerCase();
  return MBID.test(folded) ? folded : undefined;
}
