/**
 * How deep `[` and `{` nest in a JSON text, counted outside strings, stopping as soon as it passes `limit`: one
 * pass over the bytes, no allocation. V8's JSON.parse builds every level of `[[[[…` however deep: 8 MB of
 * brackets took 9.7 s of one thread and 285 MiB (issue #27), so an upstream's body is measured before it is parsed.
 * Reads UTF-8 bytes: every byte of a multi-byte character is 0x80 or above, so none is mistaken for a bracket,
 * a quote or a backslash. Malformed text is left for JSON.parse to refuse.
 */
export function jsonNestingDepth(bytes: Uint8Array, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i++; // the escaped character (a quote, say) does not end the string
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) {
      depth--;
    }
  }
  return deepest;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
