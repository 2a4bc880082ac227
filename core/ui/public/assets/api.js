// The one way the UI talks to the server: JSON in and out, problem+json turned into ApiError.

export const API = '/api/v1';

/** An answer the API refused: keeps the problem's title, detail, field errors and Retry-After. */
export class ApiError extends Error {
  constructor(status, problem, retryAfter) {
    super(problemMessage(status, problem));
    this.name = 'ApiError';
    this.status = status;
    this.problem = problem;
    this.retryAfter = retryAfter;
  }
}

let onUnauthorized = () => {};

/** Called on any 401 from an API call other than the login itself (an expired or ended session). */
export function setUnauthorizedHandler(handler) {
  onUnauthorized = handler;
}

/**
 * Calls `/api/v1` + path. Resolves with the JSON body (undefined for 204); rejects with ApiError, or with an
 * Error saying the server cannot be reached. Aborted requests reject with the AbortError, which callers ignore.
 */
export async function api(path, { method = 'GET', body, signal, allow401 = false } = {}) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response;
  try {
    response = await fetch(API + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
      credentials: 'same-origin',
    });
  } catch (err) {
    if (err && err.name === 'AbortError') throw err;
    throw new Error('Cannot reach the Crateflow server. Check that it is running, then try again.');
  }
  if (response.status === 204) return undefined;
  const text = await response.text();
  const data = text ? parseJson(text) : undefined;
  if (response.ok) return data;
  const retryAfter = Number(response.headers.get('Retry-After')) || undefined;
  const error = new ApiError(response.status, data && typeof data === 'object' ? data : {}, retryAfter);
  if (response.status === 401 && !allow401) onUnauthorized(error);
  throw error;
}

export const isAbort = (err) => Boolean(err && err.name === 'AbortError');

/** A query string from an object, leaving out empty values. */
export function query(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    // A proxy in front may answer with an HTML error page; the status still tells what went wrong.
    return undefined;
  }
}

function problemMessage(status, problem) {
  const fields = Array.isArray(problem.errors) ? problem.errors.map((e) => `${e.path}: ${e.message}`).join('; ') : '';
  const base = problem.detail || problem.title || `The server answered ${status}`;
  return fields && !base.includes(fields) ? `${base} (${fields})` : base;
}
