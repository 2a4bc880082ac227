import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { readBody } from '../fakes/recorded-request.js';

/** How often a receiver fails, and how. The rest of the answers are a prompt 200. */
export interface FaultPlan {
  /** Share of answers that are 500/502/503. */
  serverError: number;
  /** Share of requests whose connection is destroyed without an answer (the sender sees a reset). */
  reset: number;
  /** Share of answers held back `slowMs` (longer than the webhook's timeout_ms), then a 503. */
  slow: number;
  slowMs: number;
  /**
   * A delivery is never failed more often than this. The sender gives up after `retry` + 1 failed attempts
   * (the delivery is then `failed`, by contract), so the plan keeps at least one attempt in hand for a failure the
   * receiver cannot see; everything else is random.
   */
  maxFailuresPerDelivery: number;
}

/** What one receiver saw of one delivery (one X-Webhook-Delivery id). */
export interface DeliverySeen {
  eventId: string;
  bodyHash: string;
  requests: number;
  failuresDealt: number;
  acks: number;
  /** Requests that arrived after this delivery's first 2xx (resends the sender could not know were redundant). */
  requestsAfterAck: number;
  firstAckAt: number | undefined;
}

export interface FaultInjectingReceiver {
  readonly name: string;
  readonly url: string;
  /** By delivery id. */
  readonly deliveries: ReadonlyMap<string, DeliverySeen>;
  /** Event (queue item) id → first time any of its deliveries was acknowledged (performance.now()-free epoch ms). */
  readonly ackedEvents: ReadonlyMap<string, number>;
  readonly counts: { requests: number; acks: number; serverErrors: number; resets: number; slow: number };
  /** Contract violations seen (bad signature, a delivery id reused for another event, changed bytes on a retry…). */
  readonly violations: string[];
  close(): Promise<void>;
}

const STATUSES = [500, 502, 503] as const;

/**
 * A webhook target that fails at random by `plan`, checks every request against the webhook contract (signature,
 * stable delivery id and bytes across retries) and records which events it acknowledged with a 2xx, and when.
 * The event identity is `data.id` (the queue item id of a `queue_added` event).
 */
export async function startFaultInjectingReceiver(name: string, secret: string, plan: FaultPlan, random: () => number): Promise<FaultInjectingReceiver> {
  const deliveries = new Map<string, DeliverySeen>();
  const ackedEvents = new Map<string, number>();
  const counts = { requests: 0, acks: 0, serverErrors: 0, resets: 0, slow: 0 };
  const violations: string[] = [];
  const violate = (message: string) => {
    if (violations.length < 50) violations.push(`${name}: ${message}`);
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    counts.requests++;
    const deliveryId = header(req, 'x-webhook-delivery');
    const signature = header(req, 'x-webhook-signature');
    const expected = createHmac('sha256', secret).update(body).digest('hex');
    if (signature !== expected) violate(`delivery ${deliveryId}: X-Webhook-Signature does not match the body`);
    let eventId = '';
    try {
      const payload: unknown = JSON.parse(body.toString('utf8'));
      const data = payload && typeof payload === 'object' && 'data' in payload ? payload.data : undefined;
      const id = data && typeof data === 'object' && 'id' in data ? data.id : undefined;
      if (typeof id === 'string') eventId = id;
    } catch (err: unknown) {
      violate(`delivery ${deliveryId}: body is not JSON (${String(err)})`);
    }
    if (!deliveryId || !eventId) violate(`a request without X-Webhook-Delivery or data.id (${deliveryId}, ${eventId})`);
    const bodyHash = createHash('sha256').update(body).digest('hex');
    let seen = deliveries.get(deliveryId);
    if (!seen) {
      seen = { eventId, bodyHash, requests: 0, failuresDealt: 0, acks: 0, requestsAfterAck: 0, firstAckAt: undefined };
      deliveries.set(deliveryId, seen);
    } else {
      if (seen.eventId !== eventId) violate(`delivery ${deliveryId} carried event ${seen.eventId}, now ${eventId}`);
      if (seen.bodyHash !== bodyHash) violate(`delivery ${deliveryId} was resent with different bytes`);
    }
    seen.requests++;
    if (seen.firstAckAt !== undefined) seen.requestsAfterAck++;

    const roll = random();
    const mayFail = seen.failuresDealt < plan.maxFailuresPerDelivery;
    if (mayFail && roll < plan.reset) {
      seen.failuresDealt++;
      counts.resets++;
      req.socket.destroy();
      return;
    }
    if (mayFail && roll < plan.reset + plan.slow) {
      seen.failuresDealt++;
      counts.slow++;
      await sleep(plan.slowMs, undefined, { ref: false });
      if (!res.destroyed) res.writeHead(503).end();
      return;
    }
    if (mayFail && roll < plan.reset + plan.slow + plan.serverError) {
      seen.failuresDealt++;
      counts.serverErrors++;
      res.writeHead(STATUSES[Math.floor(random() * STATUSES.length)] ?? 500, { 'content-type': 'text/plain' }).end('injected failure');
      return;
    }
    const delivery = seen;
    res.once('finish', () => {
      const now = Date.now();
      counts.acks++;
      delivery.acks++;
      delivery.firstAckAt ??= now;
      if (!ackedEvents.has(delivery.eventId)) ackedEvents.set(delivery.eventId, now);
    });
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      violate(`receiver bug: ${String(err)}`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  // Longer than undici's keep-alive (4 s), so the sender always closes an idle socket first and never sends on
  // one this side is closing (a failure the receiver could not see).
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no TCP address');
  return {
    name,
    url: `http://127.0.0.1:${address.port}/hook/${name}`,
    deliveries,
    ackedEvents,
    counts,
    violations,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function header(req: IncomingMessage, name: string): string {
  const value = req.headers[name];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}
