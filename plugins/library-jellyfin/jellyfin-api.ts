import { createHash } from 'node:crypto';
import { CredentialsError, isHttpRequestError, RetryLaterError, type HttpClient, type HttpResponse } from '@crateflow/sdk';
import { isRecord, type JsonRecord } from '@crateflow/sdk';

export interface JellyfinApiOptions {
  url: string;
  apiKey: string;
  timeoutMs: number;
  /** Crateflow's version, sent as the client version. */
  version: string;
}

/**
 * Calls Jellyfin (shared/reference/jellyfin-api.md). Authenticates with `Authorization: MediaBrowser …, Token="…"`,
 * the one form every Jellyfin version accepts (12.0 turns the legacy X-Emby-Token and api_key forms off by default).
 */
export class JellyfinApi {
  readonly base: string;
  private readonly authorization: string;

  constructor(
    private readonly http: HttpClient,
    private readonly options: JellyfinApiOptions,
  ) {
    this.base = options.url.replace(/\/+$/, '');
    // A stable id per server URL, so Jellyfin shows one device for Crateflow instead of one per restart.
    const deviceId = `crateflow-${createHash('sha256').update(this.base).digest('hex').slice(0, 16)}`;
    const field = (name: string, value: string): string => `${name}="${encodeURIComponent(value)}"`;
    this.authorization = `MediaBrowser ${[
      field('Client', 'crateflow'),
      field('Device', 'crateflow-server'),
      field('DeviceId', deviceId),
      field('Version', options.version),
      field('Token', options.apiKey),
    ].join(', ')}`;
  }

  /** GETs a JSON object; `what` names the call in error messages. */
  async getJson(path: string, query: Record<string, string> = {}, signal?: AbortSignal): Promise<JsonRecord> {
    const search = new URLSearchParams(query).toString();
    const res = await this.send('GET', `${path}${search ? `?${search}` : ''}`, signal);
    if (res.status !== 200) throw this.unexpected(res, path);
    let body: unknown;
    try {
      body = res.json();
    } catch (err: unknown) {
      throw new Error(`not a Jellyfin server at ${this.base}: ${path} did not answer with JSON (${res.headers['content-type'] ?? 'no content type'})`, { cause: err });
    }
    if (!isRecord(body)) throw new Error(`not a Jellyfin server at ${this.base}: ${path} answered something other than a JSON object`);
    return body;
  }

  async post(path: string): Promise<void> {
    const res = await this.send('POST', path);
    if (res.status !== 204 && res.status !== 200) throw this.unexpected(res, path);
  }

  private async send(method: 'GET' | 'POST', pathAndQuery: string, signal?: AbortSignal): Promise<HttpResponse> {
    let res: HttpResponse;
    try {
      res = await this.http.request({
        url: `${this.base}${pathAndQuery}`,
        method,
        headers: { authorization: this.authorization, accept: 'application/json' },
        timeoutMs: this.options.timeoutMs,
        maxResponseBytes: 64 * 1024 * 1024,
        signal,
      });
    } catch (err: unknown) {
      if (isHttpRequestError(err) && err.reason !== 'aborted') {
        throw new RetryLaterError(`Jellyfin at ${this.base} is unreachable: ${err.message}`, { cause: err, retryAfterMs: 30_000 });
      }
      throw err;
    }
    if (res.status === 401) throw new CredentialsError(`Jellyfin at ${this.base} rejected the API key (HTTP 401); check library.api_key`);
    if (res.status === 429 || res.status >= 500) {
      throw new RetryLaterError(`Jellyfin at ${this.base} is busy or unavailable (HTTP ${res.status} from ${pathAndQuery.split('?')[0] ?? ''})`, { retryAfterMs: 30_000 });
    }
    return res;
  }

  private unexpected(res: HttpResponse, path: string): Error {
    if (res.status === 403) return new CredentialsError(`Jellyfin at ${this.base} refused ${path} (HTTP 403): it needs an admin API key`);
    if (res.status === 404) return new Error(`not a Jellyfin server at ${this.base}: ${path} answered HTTP 404 (check library.url)`);
    return new Error(`Jellyfin at ${this.base} answered ${path} with HTTP ${res.status}`);
  }
}
