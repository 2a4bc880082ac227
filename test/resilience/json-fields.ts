/** Narrowing readers for JSON the tests receive, so nothing is cast: a shape the test did not expect fails loudly. */

export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function recordOf(value: unknown, what: string): JsonRecord {
  if (!isRecord(value)) throw new Error(`${what}: expected a JSON object, got ${JSON.stringify(value)?.slice(0, 200)}`);
  return value;
}

export function numberAt(value: unknown, key: string): number {
  const field = recordOf(value, `.${key}`)[key];
  if (typeof field !== 'number') throw new Error(`.${key}: expected a number, got ${JSON.stringify(field)}`);
  return field;
}

export function stringAt(value: unknown, key: string): string | undefined {
  const field = recordOf(value, `.${key}`)[key];
  return typeof field === 'string' ? field : undefined;
}

export function recordsAt(value: unknown, key: string): JsonRecord[] {
  const field = recordOf(value, `.${key}`)[key];
  if (!Array.isArray(field)) throw new Error(`.${key}: expected an array, got ${JSON.stringify(field)?.slice(0, 200)}`);
  return field.map((item, index) => recordOf(item, `.${key}[${index}]`));
}

/** GET (or any method) and parse the JSON answer; `body` is undefined when the answer is not JSON. */
export async function fetchJson(url: string, init: RequestInit = {}): Promise<{ status: number; body: unknown; headers: Headers }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(30_000), ...init });
  const text = await res.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch (err: unknown) {
    // Not JSON: callers that need JSON assert on `body` and report the status.
    if (!(err instanceof SyntaxError)) throw err;
  }
  return { status: res.status, body, headers: res.headers };
}

/** POST a JSON body and parse the JSON answer. */
export function postJson(url: string, payload: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown; headers: Headers }> {
  return fetchJson(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(payload) });
}
