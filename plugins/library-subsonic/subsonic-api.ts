import { createHash, randomBytes } from 'node:crypto';
import { CredentialsError, isHttpRequestError, RetryLaterError, type HttpClient, type HttpResponse } from '@crateflow/sdk';
import { isRecord, numberField, stringField, type JsonRecord } from '@crateflow/sdk';

/** The protocol version Crateflow speaks (Navidrome implements 1.16.1; token auth needs ≥ 1.13.0). */
const API_VERSION = '1.16.1';

export interface SubsonicApiOptions {
  url: string;
  username: string;
  password: string;
  clientName: string;
  timeoutMs: number;
}

/**
 * Calls a Subsonic / OpenSubsonic server (shared/reference/subsonic-api.md). Authenticates with a salted token
 * (`t = md5(password + s)`, a fresh salt per request; the password itself never goes into a URL), always asks
 * for JSON, and checks `subsonic-response.status`, because servers report errors (bad credentials included)
 * as HTTP 200 with `status: "failed"`.
 */
export class SubsonicApi {
  readonly base: string;

  constructor(
    private readonly http: HttpClient,
    private readonly options: SubsonicApiOptions,
  ) {
    this.base = options.url.replace(/\/+$/, '');
  }

  /** Calls `method` and returns the `subsonic-response` object of a successful answer. */
  async call(method: string, params: Record<string, string | number> = {}, signal?: AbortSignal): Promise<JsonRecord> {
    const salt = randomBytes(8).toString('hex');
    const query = new URLSearchParams({
      u: this.options.username,
      t: createHash('md5').update(this.options.password + salt, 'utf8').digest('hex'),
      s: salt,
      v: API_VERSION,
      c: this.options.clientName,
      f: 'json',
    });
    for (const [name, value] of Object.entries(params)) query.set(name, String(value));
    const res = await this.send(`${this.base}/rest/${method}?${query.toString()}`, method, signal);
    const envelope = this.envelope(res, method);
    if (envelope['status'] === 'ok') return envelope;
    throw this.failure(envelope, method);
  }

  private async send(url: string, method: string, signal?: AbortSignal): Promise<HttpResponse> {
    let res: HttpResponse;
    try {
      res = await this.http.request({ url, headers: { accept: 'application/json' }, timeoutMs: this.options.timeoutMs, maxResponseBytes: 64 * 1024 * 1024, signal });
    } catch (err: unknown) {
      if (isHttpRequestError(err) && err.reason !== 'aborted') {
        throw new RetryLaterError(`Subsonic server at ${this.base} is unreachable: ${err.message}`, { cause: err, retryAfterMs: 30_000 });
      }
      throw err;
    }
    if (res.status === 401 || res.status === 403) {
      throw new CredentialsError(`${this.base}/rest/${method} answered HTTP ${res.status}: a proxy in front of the Subsonic server refused the request`);
    }
    if (res.status === 429 || res.status === 502 || res.status === 503 || res.status === 504) {
      throw new RetryLaterError(`Subsonic server at ${this.base} is busy or unavailable (HTTP ${res.status} from ${method})`, { retryAfterMs: 30_000 });
    }
    if (res.status !== 200) {
      throw new Error(`not a Subsonic server at ${this.base}: /rest/${method} answered HTTP ${res.status} (check library.url; it is the address before /rest)`);
    }
    return res;
  }

  private envelope(res: HttpResponse, method: string): JsonRecord {
    let body: unknown;
    try {
      body = res.json();
    } catch (err: unknown) {
      const type = res.headers['content-type'] ?? 'no content type';
      throw new Error(`not a Subsonic server at ${this.base}: /rest/${method} did not answer with JSON (${type})`, { cause: err });
    }
    const envelope = isRecord(body) ? body['subsonic-response'] : undefined;
    if (!isRecord(envelope)) throw new Error(`not a Subsonic server at ${this.base}: /rest/${method} answered JSON without "subsonic-response"`);
    return envelope;
  }

  private failure(envelope: JsonRecord, method: string): Error {
    const error = isRecord(envelope['error']) ? envelope['error'] : {};
    const code = numberField(error, 'code');
    const message = stringField(error, 'message') ?? 'no message';
    const who = `user "${this.options.username}"`;
    switch (code) {
      case 40:
        return new CredentialsError(`the Subsonic server at ${this.base} rejected ${who}: ${message} (error 40); check library.username and library.password`);
      case 41:
        return new CredentialsError(`the Subsonic server at ${this.base} does not support token authentication for ${who} (error 41, e.g. an LDAP user); Crateflow never sends the plain password`);
      case 44:
        return new CredentialsError(`the Subsonic server at ${this.base} rejected the credentials: ${message} (error 44)`);
      case 50:
        return new Error(`${who} may not call ${method} on the Subsonic server at ${this.base}: ${message} (error 50)`);
      default:
        return new Error(`the Subsonic server at ${this.base} answered ${method} with error ${code ?? 'without a code'}: ${message}`);
    }
  }
}
