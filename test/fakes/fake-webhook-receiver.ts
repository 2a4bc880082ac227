import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { listenOnLoopback } from './listen-on-loopback.js';
import { recordRequest, type RecordedRequest } from './recorded-request.js';

/** How the receiver answers one request. Everything is optional: `{}` is a plain `200`. */
export interface WebhookReply {
  readonly status?: number;
  /** Wait this long before answering (or resetting), e.g. to trip the sender's timeout. */
  readonly delayMs?: number;
  /** Destroy the socket instead of answering: the sender sees a connection reset. */
  readonly reset?: boolean;
  /** Answer a redirect (status 302 unless `status` is another 3xx) with this `Location`. */
  readonly redirectTo?: string;
  readonly body?: string;
  readonly headers?: OutgoingHttpHeaders;
}

/** Decides the reply to the request that arrived as number `index` (0-based). */
export type WebhookResponder = (request: RecordedRequest, index: number) => WebhookReply | Promise<WebhookReply>;

export interface FakeWebhookReceiver {
  /** Where to deliver: `http://127.0.0.1:<port>/hook`. Any other path is recorded too. */
  readonly url: string;
  /** Every request with its exact body bytes, in arrival order. */
  readonly received: RecordedRequest[];
  close(): Promise<void>;
  respondWith(responder: WebhookResponder): void;
  /** Resolves with the first `count` requests once that many have arrived; rejects after `timeoutMs` (default 60 s, a liveness bound). */
  waitFor(count: number, timeoutMs?: number): Promise<RecordedRequest[]>;
}

interface Waiter {
  readonly count: number;
  readonly resolve: (requests: RecordedRequest[]) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/** A webhook target that records deliveries and answers as scripted. */
export async function startFakeWebhookReceiver(responder: WebhookResponder = () => ({})): Promise<FakeWebhookReceiver> {
  const received: RecordedRequest[] = [];
  const waiters = new Set<Waiter>();
  let respond = responder;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const request = await recordRequest(req);
    const index = received.push(request) - 1;
    for (const waiter of waiters) {
      if (received.length < waiter.count) continue;
      waiters.delete(waiter);
      clearTimeout(waiter.timer);
      waiter.resolve(received.slice(0, waiter.count));
    }
    const reply = await respond(request, index);
    // An unref'd timer: a delayed reply never keeps the test process alive after close().
    if (reply.delayMs) await delay(reply.delayMs, undefined, { ref: false });
    if (res.destroyed) return; // the sender gave up (timeout) or close() dropped the connection
    if (reply.reset) {
      req.socket.destroy();
      return;
    }
    const redirect = reply.redirectTo !== undefined;
    const status = reply.status ?? (redirect ? 302 : 200);
    const body = reply.body ?? '';
    res.writeHead(redirect && (status < 300 || status > 399) ? 302 : status, {
      'content-type': 'text/plain; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      ...(redirect ? { location: reply.redirectTo } : {}),
      ...reply.headers,
    });
    res.end(body);
  };

  const listener = await listenOnLoopback(handle);
  return {
    url: `${listener.origin}/hook`,
    received,
    close: () => {
      for (const waiter of waiters) {
        clearTimeout(waiter.timer);
        waiter.reject(new Error(`webhook receiver closed after ${received.length} of ${waiter.count} expected request(s)`));
      }
      waiters.clear();
      return listener.close();
    },
    respondWith(next) {
      respond = next;
    },
    waitFor(count, timeoutMs = 60_000) {
      if (received.length >= count) return Promise.resolve(received.slice(0, count));
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          count,
          resolve,
          reject,
          timer: setTimeout(() => {
            waiters.delete(waiter);
            reject(new Error(`expected ${count} webhook request(s) within ${timeoutMs} ms, got ${received.length}`));
          }, timeoutMs),
        };
        waiters.add(waiter);
      });
    },
  };
}
