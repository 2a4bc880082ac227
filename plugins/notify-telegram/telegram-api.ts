import { isHttpRequestError, RetryLaterError, type HttpClient } from '@crateflow/sdk';

/** A refusal by the Bot API: `{ ok: false, error_code, description, parameters: { retry_after } }`. */
export class TelegramError extends Error {
  constructor(readonly status: number, readonly description: string, readonly retryAfterS?: number) {
    super(`Telegram answered ${status}: ${description}`);
    this.name = 'TelegramError';
  }
}

/**
 * Calls Bot API methods (`POST {api_url}/bot{token}/{method}` with a JSON body). The token is part of every URL, so
 * no error from here carries a URL: messages name the method, and an HTTP client error is rewritten without it.
 */
export class TelegramApi {
  constructor(private readonly http: HttpClient, private readonly apiUrl: string, private readonly token: string, private readonly timeoutMs: number) {}

  async call<T>(method: string, params: Record<string, unknown>, options: { signal: AbortSignal; timeoutMs?: number }): Promise<T> {
    let res;
    try {
      res = await this.http.request({
        method: 'POST',
        url: `${this.apiUrl.replace(/\/$/, '')}/bot${this.token}/${method}`,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(params),
        timeoutMs: options.timeoutMs ?? this.timeoutMs,
        maxResponseBytes: 4 * 1024 * 1024,
        signal: options.signal,
      });
    } catch (err: unknown) {
      const reason = isHttpRequestError(err) ? err.reason : 'network';
      const message = (err instanceof Error ? err.message : String(err)).split(this.token).join('<bot token>');
      throw new RetryLaterError(`Telegram ${method}: ${reason}: ${message}`);
    }
    const body = parse(res.text());
    if (body?.ok === true) return body.result as T;
    const description = typeof body?.description === 'string' ? body.description : `HTTP ${res.status}`;
    const retryAfter = typeof body?.parameters?.retry_after === 'number' ? body.parameters.retry_after : undefined;
    // A refused button echoes its URL, and a decision link's token is a credential.
    const shown = description.split(this.token).join('<bot token>').replace(/\/decide\/[A-Za-z0-9_-]+/g, '/decide/[token]');
    throw new TelegramError(typeof body?.error_code === 'number' ? body.error_code : res.status, shown, retryAfter);
  }
}

interface ApiAnswer {
  ok?: unknown;
  result?: unknown;
  error_code?: unknown;
  description?: unknown;
  parameters?: { retry_after?: unknown };
}

function parse(text: string): ApiAnswer | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? (value as ApiAnswer) : undefined;
  } catch {
    return undefined; // a proxy's page, say
  }
}
