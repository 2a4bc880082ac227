// The one way the UI talks to the server: JSON in and out, problem+json turned into ApiError.

/** @typedef {import('../../api-types.js').Problem} Problem */
/** @typedef {import('../../api-types.js').FieldProblem} FieldProblem */

/**
 * The body of a refused answer as the UI keeps it. A proxy in front may answer with a page that is no problem
 * at all, so every member may be missing.
 * @typedef {Partial<Problem> & { errors?: FieldProblem[] }} ProblemBody
 */

/**
 * @typedef {object} ApiOptions
 * @property {'GET' | 'POST' | 'PATCH' | 'DELETE'} [method]
 * @property {unknown} [body] sent as JSON
 * @property {AbortSignal} [signal]
 * @property {boolean} [allow401] a 401 is the caller's answer (a wrong password), not an ended session
 */

export const API = '/api/v1';

/** An answer the API refused: keeps the problem's title, detail, field errors and Retry-After. */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {ProblemBody} problem
   * @param {number | undefined} retryAfter seconds
   */
  constructor(status, problem, retryAfter) {
    super(problemMessage(status, problem));
    this.name = 'ApiError';
    this.status = status;
    this.problem = problem;
    this.retryAfter = retryAfter;
  }
}

/** @type {(error: ApiError) => void} */
let onUnauthorized = () => {};

/**
 * Called on any 401 from an API call other than the login itself (an expired or ended session).
 * @param {(error: ApiError) => void} handler
 */
export function setUnauthorizedHandler(handler) {
  onUnauthorized = handler;
}

/**
 * Calls `/api/v1` + path. Resolves with the JSON body (undefined for 204); rejects with ApiError, or with an
 * Error saying the server cannot be reached. Aborted requests reject with the AbortError, which callers ignore.
 *
 * `T` is the answer's type, named by the caller from the server's schema for the route (endpoints.js does, for
 * every call the UI makes). The server checks its answers against those schemas, so the UI trusts the body
 * rather than checking it a second time.
 * @template T
 * @param {string} path
 * @param {ApiOptions} [options]
 * @returns {Promise<T>}
 */
export async function api(path, { method = 'GET', body, signal, allow401 = false } = {}) {
  /** @type {Record<string, string>} */
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
    if (isAbort(err)) throw err;
    throw new Error('Cannot reach the Crateflow server. Check that it is running, then try again.');
  }
  if (response.status === 204) return /** @type {T} */ (undefined);
  const text = await response.text();
  const data = text ? parseJson(text) : undefined;
  if (response.ok) return /** @type {T} */ (data);
  const retryAfter = Number(response.headers.get('Retry-After')) || undefined;
  // problem-middleware.ts writes a Problem; anything else (a proxy's page) has been parsed to undefined here.
  const problem = /** @type {ProblemBody} */ (data && typeof data === 'object' ? data : {});
  const error = new ApiError(response.status, problem, retryAfter);
  if (response.status === 401 && !allow401) onUnauthorized(error);
  throw error;
}

/**
 * Whether a request was aborted (a fetch rejects with a DOMException named AbortError).
 * @param {unknown} err
 */
export const isAbort = (err) => typeof err === 'object' && err !== null && 'name' in err && err.name === 'AbortError';

/**
 * A query string from an object, leaving out empty values.
 * @param {Record<string, string | number | boolean | null | undefined>} params
 */
export function query(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/**
 * @param {string} text
 * @returns {unknown}
 */
function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    // A proxy in front may answer with an HTML error page; the status still tells what went wrong.
    return undefined;
  }
}

/**
 * @param {number} status
 * @param {ProblemBody} problem
 */
function problemMessage(status, problem) {
  const fields = Array.isArray(problem.errors) ? problem.errors.map((e) => `${e.path}: ${e.message}`).join('; ') : '';
  const base = problem.detail || problem.title || `The server answered ${status}`;
  return fields && !base.includes(fields) ? `${base} (${fields})` : base;
}
