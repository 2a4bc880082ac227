import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface RawRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** The source address of the connection, e.g. 127.0.0.2 to be a peer outside trusted_proxies. */
  localAddress?: string;
  /** TLS only: the name sent as SNI (the certificate is not verified: test servers use self-signed ones). */
  servername?: string;
}

/**
 * How long a request may go without any answer before it fails. A liveness bound only, there to report a hang
 * instead of waiting for the suite: on a loaded machine (a second test run beside this one, load 10–21) a request
 * queued behind a 200-connection flood took over 10 s, so no tighter bound is safe here (issue #27).
 */
const SILENCE_LIMIT_MS = 120_000;

/**
 * One HTTP(S) request with full control over what fetch() hides: the Host header, the source address, no
 * browser headers added, no redirects followed, and a fresh connection each time.
 */
export function rawRequest(url: string, options: RawRequestOptions = {}): Promise<RawResponse> {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  const send = secure ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      {
        protocol: target.protocol,
        hostname: target.hostname.replace(/^\[|\]$/g, ''),
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: options.method ?? 'GET',
        headers: { ...(options.body !== undefined ? { 'content-length': String(Buffer.byteLength(options.body)) } : {}), ...options.headers },
        agent: false,
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
        ...(secure ? { servername: options.servername ?? target.hostname, rejectUnauthorized: false } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setTimeout(SILENCE_LIMIT_MS, () => req.destroy(new Error(`no answer from ${url} within ${SILENCE_LIMIT_MS / 1000} s`)));
    req.end(options.body);
  });
}

/** The body as JSON; fails the test with the text when it is not JSON. */
export function jsonOf(response: RawResponse): unknown {
  try {
    return JSON.parse(response.text);
  } catch (err: unknown) {
    throw new Error(`expected a JSON body, got ${response.status}: ${response.text.slice(0, 200)}`, { cause: err });
  }
}
