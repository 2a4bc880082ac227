import { createHttpClient, HttpRequestError, type HttpClient, type HttpRequest, type HttpResponse } from '@crateflow/sdk';
import type { OutboundAddressPolicy } from './outbound-address-policy.js';

export interface UpstreamHttpClientOptions {
  readonly userAgent: string;
  readonly defaultTimeoutMs?: number;
  readonly connectionsPerOrigin?: number;
  /** `metadata_policy`: judges every address of every request that does not go to a named upstream. */
  readonly policy: OutboundAddressPolicy;
  /**
   * URLs the operator configured (or their defaults): requests to their exact origin (scheme, host, port) may reach
   * loopback and the LAN, for a mirror of one's own. Entries that are not http(s) URLs are ignored.
   */
  readonly upstreams: readonly string[];
}

/**
 * The HTTP client for requests to public metadata services (MusicBrainz, the Cover Art Archive, ListenBrainz,
 * Last.fm, Deezer). Each request is one hop (the sdk client follows no redirect), so a caller that follows a
 * `Location` sends every hop through here and each is judged on its own: the named upstreams by the floor alone,
 * anything else (archive.org's storage nodes, a Location an attacker chose) by the whole policy, on the literal
 * address and on every DNS answer, before a connection is opened. Anything but http and https is refused.
 */
export function createUpstreamHttpClient(options: UpstreamHttpClientOptions): HttpClient & { close(): Promise<void> } {
  const origins = new Set(options.upstreams.flatMap((url) => originOf(url) ?? []));
  const common = {
    userAgent: options.userAgent,
    ...(options.defaultTimeoutMs === undefined ? {} : { defaultTimeoutMs: options.defaultTimeoutMs }),
    ...(options.connectionsPerOrigin === undefined ? {} : { connectionsPerOrigin: options.connectionsPerOrigin }),
  };
  const named = createHttpClient({ ...common, refuseAddress: options.policy.refuseNamedUpstream });
  const other = createHttpClient({ ...common, refuseAddress: options.policy.refuse });
  return {
    request(req: HttpRequest): Promise<HttpResponse> {
      const url = typeof req.url === 'string' ? new URL(req.url) : req.url;
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        return Promise.reject(new HttpRequestError(`refused to request ${url.protocol} URL ${url.href}: only http and https are fetched`, 'refused-address'));
      }
      return origins.has(url.origin) ? named.request(req) : other.request(req);
    },
    close: async () => {
      await Promise.all([named.close(), other.close()]);
    },
  };
}

/** Every http(s) URL among the string values of a (plugin's) config, at any depth: the upstreams it names. */
export function configuredUrls(config: unknown): string[] {
  if (typeof config === 'string') return originOf(config) ? [config] : [];
  if (Array.isArray(config)) return config.flatMap(configuredUrls);
  if (config !== null && typeof config === 'object') return Object.values(config).flatMap(configuredUrls);
  return [];
}

function originOf(text: string): string | undefined {
  if (!/^https?:\/\//i.test(text)) return undefined;
  try {
    const url = new URL(text);
    // `https://*.dzcdn.net` (a pattern of preview origins) parses, but names no host a request can have.
    return url.hostname.includes('*') ? undefined : url.origin;
  } catch (err: unknown) {
    if (err instanceof TypeError) return undefined; // not a URL: a name or a pattern, not an upstream
    throw err;
  }
}
