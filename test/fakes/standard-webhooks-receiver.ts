import type { IncomingHttpHeaders } from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { listenOnLoopback } from './listen-on-loopback.js';

/** One request as the receiver judged it. */
export interface JudgedRequest {
  headers: Record<string, string>;
  body: Buffer;
  verified: boolean;
  /** The library's reason for a rejection. */
  reason?: string;
}

export interface StandardWebhooksReceiver {
  readonly url: string;
  readonly judged: JudgedRequest[];
  waitFor(count: number, timeoutMs?: number): Promise<JudgedRequest[]>;
  close(): Promise<void>;
}

/**
 * A receiver written the way a user would with the official `standardwebhooks` package: `new Webhook(secret)`
 * (or with `options`, e.g. `{ format: 'raw' }`) and `verify(rawBody, headers)`. A delivery that verifies gets
 * 204, any other 401, and both are recorded with the library's verdict.
 */
export async function startStandardWebhooksReceiver(secret: string | Uint8Array, options?: { format?: 'raw' }): Promise<StandardWebhooksReceiver> {
  const webhook = new Webhook(secret, options);
  const judged: JudgedRequest[] = [];
  const server = await listenOnLoopback(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
    const body = Buffer.concat(chunks);
    const headers = flatHeaders(req.headers);
    try {
      webhook.verify(body, headers);
      judged.push({ headers, body, verified: true });
      res.writeHead(204).end();
    } catch (err: unknown) {
      // A verification failure is the verdict under test; anything else is a bug in this fake and fails loudly.
      if (!(err instanceof WebhookVerificationError)) throw err;
      judged.push({ headers, body, verified: false, reason: err.message });
      res.writeHead(401).end();
    }
  });
  return {
    url: `${server.origin}/hook`,
    judged,
    async waitFor(count, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (judged.length < count) {
        if (Date.now() > deadline) throw new Error(`the receiver judged ${judged.length} request(s) within ${timeoutMs} ms, expected ${count}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return judged.slice(0, count);
    },
    close: () => server.close(),
  };
}

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  return flat;
}
