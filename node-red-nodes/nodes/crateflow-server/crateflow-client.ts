import http from 'node:http';
import https from 'node:https';
import { CrateflowApiError, describeFailure } from './crateflow-api-error.js';

export interface CrateflowClientOptions {
  /** e.g. `http://crateflow.lan:8080`, or with a path prefix when behind a reverse proxy. */
  baseUrl: string;
  apiKey?: string;
  /** `false` accepts self-signed certificates; prefer giving `ca` instead. */
  rejectUnauthorized?: boolean;
  /** PEM of the CA that signed the server's certificate. */
  ca?: string;
  timeoutMs?: number;
}

export interface ApiAnswer {
  status: number;
  body: unknown;
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  signal?: AbortSignal;
}

const MAX_ANSWER_BYTES = 10 * 1024 * 1024;

/**
 * Calls the Crateflow HTTP API. Uses node:http/https directly (not fetch) so the TLS options of the config node
 * apply per request without an extra dependency. Non-2xx answers become a `CrateflowApiError` with the status.
 */
export class CrateflowClient {
  readonly baseUrl: string;

  constructor(private readonly options: CrateflowClientOptions) {
    this.baseUrl = options.baseUrl.trim().replace(/\/+$/, '');
  }

  request(method: 'GET' | 'POST', path: string, options: RequestOptions = {}): Promise<ApiAnswer> {
    const url = new URL(this.baseUrl + path);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined && value !== '') url.searchParams.set(key, String(value));
    }
    const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
    const headers: http.OutgoingHttpHeaders = { accept: 'application/json', 'user-agent': 'crateflow-node-red' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = payload.length;
    }
    return new Promise<ApiAnswer>((resolve, reject) => {
      const fail = (error: unknown) =>
        reject(
          error instanceof CrateflowApiError
            ? error
            : new CrateflowApiError(`${method} ${path} failed: ${error instanceof Error ? error.message : String(error)}`, undefined, undefined, {
                cause: error,
              }),
        );
      const tls = url.protocol === 'https:' ? { rejectUnauthorized: this.options.rejectUnauthorized ?? true, ca: this.options.ca || undefined } : {};
      const transport = url.protocol === 'https:' ? https : http;
      const req = transport.request(url, { method, headers, signal: options.signal, ...tls }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) req.destroy(new Error(`answer larger than ${MAX_ANSWER_BYTES} bytes`));
          else chunks.push(chunk);
        });
        res.on('error', fail);
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          const body = parseBody(Buffer.concat(chunks), res.headers['content-type']);
          if (status >= 200 && status < 300) resolve({ status, body });
          else fail(new CrateflowApiError(describeFailure(method, path, status, body), status, body));
        });
      });
      req.setTimeout(this.options.timeoutMs ?? 15_000, () => req.destroy(new Error(`no answer within ${this.options.timeoutMs ?? 15_000} ms`)));
      req.on('error', fail);
      req.end(payload);
    });
  }
}

function parseBody(bytes: Buffer, contentType: string | undefined): unknown {
  if (bytes.length === 0) return null;
  const text = bytes.toString('utf8');
  if (!contentType || !/json/i.test(contentType)) return text;
  try {
    return JSON.parse(text);
  } catch (error: unknown) {
    // A proxy in front of Crateflow may answer with a broken JSON error page: hand the text on instead of failing.
    return text;
  }
}
