// Any absolute URL in free text: scheme, then everything up to whitespace, a quote or an angle bracket (so a
// URL inside a JSON string stops at its closing quote).
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>\\]+/gi;
// How many characters of a long path and query stay visible, to tell two URLs on one host apart.
const HINT_CHARS = 4;
const HINT_MIN_LENGTH = 16;
// A bare IPv4 address (with its port), as network errors quote them: `connect ECONNREFUSED 10.0.0.5:4533`.
const IPV4_IN_TEXT = /\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b/g;

/**
 * A URL reduced to what is safe to show: scheme, host and port, and a hint (`/…` plus the last characters of a
 * long path and query). Credentials (`user:pass@`), tokens in the path (Home Assistant's webhook ids, Slack's
 * hook paths) and query strings (`?api_key=`, Subsonic's `p=`/`t=`) never survive.
 *
 * @example hintUrl('http://u:p@ha.lan:8123/api/webhook/s3cr3t-id-0123456789') // 'http://ha.lan:8123/…6789'
 */
export function hintUrl(url: string): string {
  const scheme = /^([a-z][a-z0-9+.-]*:)\/\//i.exec(url)?.[1] ?? '';
  const afterScheme = url.slice(scheme.length + 2);
  const authorityEnd = afterScheme.search(/[/?#]/);
  const authority = authorityEnd === -1 ? afterScheme : afterScheme.slice(0, authorityEnd);
  const host = authority.slice(authority.lastIndexOf('@') + 1);
  const rest = authorityEnd === -1 ? '' : afterScheme.slice(authorityEnd).replace(/#.*$/, '');
  if (rest === '' || rest === '/') return `${scheme}//${host}${rest}`;
  const hint = rest.length >= HINT_MIN_LENGTH ? rest.slice(-HINT_CHARS) : '';
  return `${scheme}//${host}/…${hint}`;
}

/** Every URL in `text` reduced by {@link hintUrl}: for log lines, where an operator still needs to see the host. */
export function hintUrlsIn(text: string): string {
  return text.replace(URL_IN_TEXT, hintUrl);
}

/**
 * Every URL in `text` replaced by `<url>`, and every IPv4 address by `<address>`: for what the public sees
 * (GET /health), where even the hosts of a LAN are nobody's business.
 */
export function hideUrlsIn(text: string): string {
  return text.replace(URL_IN_TEXT, '<url>').replace(IPV4_IN_TEXT, '<address>');
}
