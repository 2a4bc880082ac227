/** Narrows parsed JSON to a plain object so its members can be read without casts. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses a request body as JSON; `undefined` for an empty body, `{ invalid: true }` when it is not JSON. */
export function parseJsonBody(text: string): { readonly invalid: true } | { readonly invalid: false; readonly value: unknown } {
  if (text.trim() === '') return { invalid: false, value: undefined };
  try {
    const value: unknown = JSON.parse(text);
    return { invalid: false, value };
  } catch (error: unknown) {
    // Not JSON is an expected client mistake; the caller answers 400 like the real server would.
    return { invalid: true };
  }
}
