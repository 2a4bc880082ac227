// An origin as a Content-Security-Policy source expression accepts it: scheme, host (optionally `*.` for every
// subdomain) and port, nothing else.
const ORIGIN = /^(https?):\/\/(\*\.)?([a-z0-9.-]+|\[[0-9a-f:.]+\])(:\d{1,5})?$/i;

/**
 * Whether `origin` is one a preview provider may list in `origins`: `https://cdn.example.com`,
 * `https://*.example.com` (every subdomain) or `http://127.0.0.1:8080` (a test fake); no path, query or wildcard
 * elsewhere.
 *
 * @example
 * isPreviewOrigin('https://*.dzcdn.net') === true; isPreviewOrigin('https://cdn.example.com/x') === false
 */
export function isPreviewOrigin(origin: string): boolean {
  return ORIGIN.test(origin);
}

/**
 * Whether a preview URL comes from one of `origins`, matched the way a browser matches a CSP `media-src`:
 * same scheme, same host (or a subdomain, for `*.host`), same port.
 *
 * @example
 * isFromOrigins('https://cdnt-preview.dzcdn.net/api/1/1/a.mp3', ['https://*.dzcdn.net']) === true
 */
export function isFromOrigins(url: string, origins: readonly string[]): boolean {
  if (!URL.canParse(url)) return false;
  const parsed = new URL(url);
  return origins.some((origin) => {
    const match = ORIGIN.exec(origin);
    if (!match) return false;
    const [, scheme, wildcard, host, port] = match;
    if (`${scheme?.toLowerCase()}:` !== parsed.protocol) return false;
    const defaultPort = parsed.protocol === 'https:' ? '443' : '80';
    if ((port ? port.slice(1) : defaultPort) !== (parsed.port || defaultPort)) return false;
    const wanted = (host ?? '').toLowerCase();
    return wildcard ? parsed.hostname.endsWith(`.${wanted}`) : parsed.hostname === wanted;
  });
}
