import type { RecordedRequest } from './recorded-request.js';

/**
 * Where Jellyfin looks for an access token, in its order. `legacyAuth` mimics `EnableLegacyAuthorization`
 * (true up to 10.11, false by default in 12.0): without it `X-Emby-Token`, `api_key`, `X-Emby-Authorization`
 * and the `Emby` scheme are ignored. Returns the first token found; `undefined` when there is none.
 */
export function findJellyfinToken(request: RecordedRequest, legacyAuth: boolean): string | undefined {
  const fromAuthorization = tokenFromAuthorization(header(request, 'authorization'), legacyAuth);
  if (fromAuthorization) return fromAuthorization;
  if (legacyAuth) {
    const fromEmbyAuthorization = tokenFromAuthorization(header(request, 'x-emby-authorization'), legacyAuth);
    if (fromEmbyAuthorization) return fromEmbyAuthorization;
    const embyToken = header(request, 'x-emby-token');
    if (embyToken) return embyToken;
  }
  const mediaBrowserToken = header(request, 'x-mediabrowser-token');
  if (mediaBrowserToken) return mediaBrowserToken;
  // Query parameter names are case-insensitive in ASP.NET: `ApiKey`, `apikey` and `APIKEY` are one parameter.
  for (const [name, value] of request.query) {
    if (name.toLowerCase() === 'apikey' && value) return value;
  }
  if (legacyAuth) {
    for (const [name, value] of request.query) {
      if (name.toLowerCase() === 'api_key' && value) return value;
    }
  }
  return undefined;
}

/**
 * Parses `MediaBrowser Client="x", Device="y", Token="abc"`: the scheme is case-insensitive, values may be
 * quoted and are URL-decoded.
 */
export function parseMediaBrowserHeader(value: string, legacyAuth: boolean): Map<string, string> | undefined {
  const space = value.indexOf(' ');
  const scheme = (space < 0 ? value : value.slice(0, space)).toLowerCase();
  if (scheme !== 'mediabrowser' && !(legacyAuth && scheme === 'emby')) return undefined;
  const pairs = new Map<string, string>();
  for (const part of value.slice(space + 1).split(',')) {
    const equals = part.indexOf('=');
    if (equals < 0) continue;
    const key = part.slice(0, equals).trim().toLowerCase();
    const raw = part.slice(equals + 1).trim().replace(/^"(.*)"$/, '$1');
    pairs.set(key, decodeValue(raw));
  }
  return pairs;
}

function tokenFromAuthorization(value: string | undefined, legacyAuth: boolean): string | undefined {
  if (!value) return undefined;
  return parseMediaBrowserHeader(value, legacyAuth)?.get('token') || undefined;
}

function header(request: RecordedRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function decodeValue(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch (error: unknown) {
    // Jellyfin URL-decodes leniently; a stray `%` stays as it is.
    return raw;
  }
}
