import type { Agent } from 'undici';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { HttpRequestError } from './errors.js';
import { jsonNestingDepth } from './json-nesting-depth.js';

/**
 * One outbound request. Redirects are never followed: a 3xx comes back as the response.
 *
 * @example
 * { url: `${config.url}/rest/ping`, headers: { accept: 'application/json' }, timeoutMs: 3000, signal }
 */
export interface HttpRequest {
  url: string | URL;
  method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Whole-request deadline (connect, headers and body). Defaults to the client's `defaultTimeoutMs`. */
  timeoutMs?: number;
  /** Bodies longer than this are cut off with an error (default 8 MiB). */
  maxResponseBytes?: number;
  signal?: AbortSignal;
}

/**
 * A complete response: status, lower-case headers and the body bytes.
 *
 * @example
 * const res = await http.request({ url });
 * if (res.status === 200 && res.headers['content-type']?.startsWith('application/json')) use(res.json());
 */
export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  text(): string;
  /**
   * Parses the body as JSON; throws a SyntaxError naming the URL when it is not JSON, or when arrays and objects
   * nest deeper than 64 levels (no API answers that deep; parsing such a body would stall the server).
   */
  json(): unknown;
}

/**
 * The HTTP client in a plugin's context: undici underneath, a timeout on every request, the server's
 * `User-Agent`, no redirects followed, capped response bodies.
 *
 * @example
 * const res = await http.request({ url: `${base}/api/v0/searches`, method: 'POST',
 *   headers: { 'content-type': 'application/json' }, body: JSON.stringify({ searchText }), timeoutMs: 5000 });
 * if (res.status === 401) throw new CredentialsError('slskd rejected the API key');
 */
export interface HttpClient {
  request(req: HttpRequest): Promise<HttpResponse>;
}

/**
 * Options for {@link createHttpClient}.
 *
 * @example
 * { userAgent: 'my-plugin/1.0', defaultTimeoutMs: 5000, refuseAddress: (a) => (a === '169.254.169.254' ? 'metadata address' : undefined) }
 */
export interface HttpClientOptions {
  userAgent: string;
  defaultTimeoutMs?: number;
  /** Connections per origin (a burst of requests to one target queues instead of opening sockets without bound). */
  connectionsPerOrigin?: number;
  /**
   * Called with every address about to be connected to (after DNS resolution, so a name that resolves to a
   * forbidden address is caught too). Return a reason string to refuse the connection.
   */
  refuseAddress?: (address: string) => string | undefined;
}

const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
// Deeper than any answer of the services plugins talk to (MusicBrainz, ListenBrainz, Last.fm, Deezer, slskd,
// Subsonic and Jellyfin nest about ten levels), far below what stalls JSON.parse (issue #27).
const MAX_JSON_DEPTH = 64;

/**
 * Builds an {@link HttpClient}. The server builds one per plugin; tests and the contract kit may build their own.
 *
 * @example
 * const http = createHttpClient({ userAgent: 'my-plugin-test/1.0', defaultTimeoutMs: 2000 });
 */
export function createHttpClient(options: HttpClientOptions): HttpClient & { close(): Promise<void> } {
  const refuse = options.refuseAddress;
  // undici loads on the first request: most servers never make an outbound call, and importing it costs
  // ~35 ms of every start.
  let agent: Agent | undefined;
  // Resolved once: a dynamic import() per request would go through the module loader every time.
  let undiciModule: Promise<typeof import('undici')> | undefined;
  const defaultTimeout = options.defaultTimeoutMs ?? 10_000;

  async function request(req: HttpRequest): Promise<HttpResponse> {
    const url = typeof req.url === 'string' ? new URL(req.url) : req.url;
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (refuse && isIP(literal)) {
      const reason = refuse(literal);
      if (reason) throw new HttpRequestError(`refused to connect to ${literal}: ${reason}`, 'refused-address');
    }
    const timeoutMs = req.timeoutMs ?? defaultTimeout;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = req.signal ? AbortSignal.any([req.signal, deadline]) : deadline;
    const limit = req.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    undiciModule ??= import('undici');
    const undici = await undiciModule;
    agent ??= new undici.Agent({
      connections: options.connectionsPerOrigin ?? 16,
      keepAliveTimeout: 4000,
      connect: refuse ? { lookup: guardedLookup(refuse) } : {},
    });
    const method = req.method ?? 'GET';
    const send = () =>
      undici.request(url, {
        method,
        headers: { 'user-agent': options.userAgent, ...req.headers },
        body: req.body,
        signal,
        dispatcher: agent,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
    try {
      let res;
      try {
        res = await send();
      } catch (err: unknown) {
        // A kept-alive connection the server closed just as the request went out: nothing was answered, so a GET
        // or HEAD is sent once more on a fresh connection (as browsers do), within the same deadline.
        if (!((method === 'GET' || method === 'HEAD') && isResetBeforeAnswer(err) && !signal.aborted)) throw err;
        res = await send();
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
        size += buf.length;
        if (size > limit) {
          res.body.destroy();
          throw new HttpRequestError(`response from ${url.origin} exceeds ${limit} bytes`, 'response-too-large');
        }
        chunks.push(buf);
      }
      return toResponse(url, res.statusCode, res.headers, Buffer.concat(chunks));
    } catch (err: unknown) {
      throw classify(err, url, timeoutMs, deadline, undici.errors, req.signal);
    }
  }
  return { request, close: async () => agent?.close() };
}

/** The connection was closed or reset under the request before any answer came (undici: ECONNRESET, UND_ERR_SOCKET). */
function isResetBeforeAnswer(err: unknown): boolean {
  const codes = [err, err instanceof Error ? err.cause : undefined].map((e) => (e instanceof Error && 'code' in e ? e.code : undefined));
  return codes.some((code) => code === 'ECONNRESET' || code === 'UND_ERR_SOCKET');
}

function toResponse(url: URL, status: number, raw: Record<string, string | string[] | undefined>, body: Buffer): HttpResponse {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return {
    status,
    headers,
    body,
    text: () => body.toString('utf8'),
    json: () => {
      if (jsonNestingDepth(body, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
        throw new SyntaxError(`${url.origin}${url.pathname} answered JSON nested deeper than ${MAX_JSON_DEPTH} levels (status ${status}); it was not parsed`);
      }
      try {
        return JSON.parse(body.toString('utf8'));
      } catch (err: unknown) {
        throw new SyntaxError(`${url.origin}${url.pathname} did not answer with JSON (status ${status})`, { cause: err });
      }
    },
  };
}

function classify(err: unknown, url: URL, timeoutMs: number, deadline: AbortSignal, undiciErrors: typeof import('undici').errors, callerSignal?: AbortSignal): Error {
  if (err instanceof HttpRequestError) return err;
  const where = `${url.origin}${url.pathname}`;
  if (callerSignal?.aborted) return new HttpRequestError(`request to ${where} was aborted`, 'aborted', { cause: err });
  if (
    deadline.aborted ||
    err instanceof undiciErrors.HeadersTimeoutError ||
    err instanceof undiciErrors.BodyTimeoutError ||
    err instanceof undiciErrors.ConnectTimeoutError
  ) {
    return new HttpRequestError(`request to ${where} timed out after ${timeoutMs} ms`, 'timeout', { cause: err });
  }
  const cause = err instanceof Error ? err : new Error(String(err));
  const refusedBy = findRefusal(cause);
  if (refusedBy) return refusedBy;
  const code = 'code' in cause && typeof cause.code === 'string' ? ` (${cause.code})` : '';
  return new HttpRequestError(`request to ${where} failed: ${cause.message}${code}`, 'network', { cause });
}

function findRefusal(err: Error): HttpRequestError | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof HttpRequestError) return current;
    current = current.cause;
  }
  return undefined;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup replacement that refuses forbidden addresses, so the check applies to the address actually used. */
function guardedLookup(refuse: (address: string) => string | undefined) {
  return (hostname: string, opts: { all?: boolean }, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...opts, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      for (const { address } of addresses) {
        const reason = refuse(address);
        if (reason) {
          return callback(new HttpRequestError(`refused to connect to ${hostname} (${address}): ${reason}`, 'refused-address'), []);
        }
      }
      const first = addresses[0];
      if (opts.all) return callback(null, addresses);
      return first ? callback(null, first.address, first.family) : callback(new Error(`no address for ${hostname}`), []);
    });
  };
}
