const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A header value as the proxy meant it. Node reads header bytes as Latin-1, one character per byte, but
 * Authelia and other forward-auth servers send names such as "Zoë Ångström" as UTF-8 bytes, which Node
 * then shows as "ZoÃ« Ã…ngstrÃ¶m". The bytes are decoded as UTF-8 when they are valid UTF-8 (ASCII
 * included); a value that is not (a proxy that really sent Latin-1) is kept as Latin-1.
 */
export function decodeHeaderValue(value: string): string {
  // Characters above U+00FF cannot come from Node's Latin-1 reading: the value was decoded already.
  if (!/[\u0080-\u00ff]/.test(value) || /[^\u0000-\u00ff]/.test(value)) return value;
  const bytes = Buffer.from(value, 'latin1');
  try {
    return strictUtf8.decode(bytes);
  } catch (err: unknown) {
    // Not UTF-8: the proxy sent Latin-1 (RFC 9110's historical header charset), which Node already decoded.
    if (err instanceof TypeError) return value;
    throw err;
  }
}
