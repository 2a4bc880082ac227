import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

/** One request as a fake server saw it, kept so tests can assert on what a client sent. */
export interface RecordedRequest {
  readonly method: string;
  /** The raw (still percent-encoded) path, without the query string. */
  readonly path: string;
  readonly query: URLSearchParams;
  /** Node's lower-cased header map. */
  readonly headers: IncomingHttpHeaders;
  /** Header names and values exactly as they came over the wire, in order. */
  readonly rawHeaders: readonly string[];
  /** The exact body bytes. */
  readonly body: Buffer;
  /** `body` decoded as UTF-8, for convenience. */
  readonly text: string;
  readonly receivedAt: Date;
}

/** Reads the whole body of `req` and returns the request as a record. */
export async function recordRequest(req: IncomingMessage): Promise<RecordedRequest> {
  const body = await readBody(req);
  const target = new URL(req.url ?? '/', 'http://fake.invalid');
  return {
    method: req.method ?? 'GET',
    path: target.pathname,
    query: target.searchParams,
    headers: req.headers,
    rawHeaders: req.rawHeaders,
    body,
    text: body.toString('utf8'),
    receivedAt: new Date(),
  };
}

/** The whole body of a request. */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** How many of `requests` went to a path starting with `prefix` (fakes count what a client cost them). */
export function countRequestsTo(requests: readonly { readonly path: string }[], prefix: string): number {
  return requests.filter((request) => request.path.startsWith(prefix)).length;
}
