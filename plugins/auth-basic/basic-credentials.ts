/**
 * The username and password of an `Authorization: Basic` header (RFC 7617, UTF-8), or undefined when the
 * header is absent, uses another scheme, or is malformed.
 */
export function basicCredentials(authorization: string | undefined): { username: string; password: string } | undefined {
  const match = /^basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i.exec(authorization ?? '');
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
