import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { listenOnLoopback } from './listen-on-loopback.js';
import { ArrivalWaiters } from './arrival-waiters.js';
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

/** A webhook target that records deliveries and answers as scripted. */
export async function startFakeWebhookReceiver(responder: WebhookResponder = () => ({})): Promise<FakeWebhookReceiver> {
  const received: RecordedRequest[] = [];
  const waiters = new ArrivalWaiters<RecordedRequest[]>();
  let respond = responder;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const request = await recordRequest(req);
    const index = received.push(request) - 1;
    waiters.settle();
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
      waiters.closeAll(`webhook receiver closed after ${received.length} request(s)`);
      return listener.close();
    },
    respondWith(next) {
      respond = next;
    },
    waitFor(count, timeoutMs = 60_000) {
      return waiters.wait(() => (received.length >= count ? received.slice(0, count) : undefined), timeoutMs, () => `${count} webhook request(s), got ${received.length}`);
    },
  };
}
