import type { ServerResponse } from 'node:http';
import type { HttpHandler, HttpRequest, Node, NodeAPI, NodeDef, NodeMessage } from '../node-red-api.js';
import { findServer } from '../crateflow-server/find-server.js';
import { keepBodyUnparsed } from './keep-body-unparsed.js';
import { BodyTooLargeError, readRawBody } from './read-raw-body.js';
import { RecentDeliveries } from './recent-deliveries.js';
import { removeRoute } from './remove-route.js';
import { verifySignature } from './verify-signature.js';

/** Events Crateflow sends, in the order the editor lists them (and numbers the outputs when split). */
const KNOWN_EVENTS = ['queue_added', 'queue_approved', 'queue_rejected', 'download_completed', 'wishlist_removed'];
const MAX_BODY_BYTES = 1024 * 1024;

interface WebhookDef extends NodeDef {
  server?: string;
  path?: string;
  /** Only these events are emitted; empty means every event. */
  events?: string[];
  /** One output per event (the selected ones, or all known events) instead of a single output. */
  splitOutputs?: boolean;
  /** Reject deliveries whose signed timestamp is further than this from now; 0 turns the check off. */
  toleranceSeconds?: number | string;
  /** Acknowledge but do not emit a delivery id seen before. */
  rejectDuplicates?: boolean;
}

export = function register(RED: NodeAPI): void {
  function CrateflowWebhookNode(this: Node, def: WebhookDef) {
    RED.nodes.createNode(this, def);
    const node = this;
    const app = RED.httpNode;
    if (!app) {
      node.status({ fill: 'red', shape: 'ring', text: RED._('crateflow-webhook.status.no-http') });
      node.error(RED._('crateflow-webhook.errors.no-http'));
      return;
    }
    const path = normalisePath(def.path);
    const events = Array.isArray(def.events) ? def.events.filter((event) => typeof event === 'string') : [];
    const outputEvents = events.length > 0 ? events : KNOWN_EVENTS;
    const toleranceMs = Math.max(0, Number(def.toleranceSeconds ?? 300) || 0) * 1000;
    const recent = new RecentDeliveries();

    const answer = (res: ServerResponse, status: number, body: Record<string, unknown>) => {
      const text = JSON.stringify(body);
      const type = status >= 400 ? 'application/problem+json' : 'application/json';
      res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
      res.end(text);
    };
    const refuse = (res: ServerResponse, status: number, detail: string) => {
      node.status({ fill: 'yellow', shape: 'ring', text: `${status}: ${detail}` });
      answer(res, status, { title: status === 401 ? 'Unauthorized' : 'Bad Request', status, detail });
    };

    const receive = async (req: HttpRequest, res: ServerResponse): Promise<void> => {
      const secret = findServer(RED, def.server)?.credentials?.webhookSecret;
      if (!secret) {
        // Never accept unsigned deliveries: anyone who can reach Node-RED could otherwise approve queue items.
        refuse(res, 401, 'no webhook secret is configured in Node-RED');
        return;
      }
      let body: Buffer;
      try {
        body = await readRawBody(req, MAX_BODY_BYTES);
      } catch (error: unknown) {
        if (error instanceof BodyTooLargeError) return refuse(res, 413, error.message);
        throw error;
      }
      const verification = verifySignature(secret, req.headers, body);
      if (!verification.ok) return refuse(res, 401, verification.reason);

      const payload = parseJson(body);
      if (payload === undefined || typeof payload.event !== 'string') return refuse(res, 400, 'body is not a Crateflow event');
      const event = payload.event;

      if (toleranceMs > 0) {
        const sentAt =
          verification.timestampSeconds !== undefined
            ? verification.timestampSeconds * 1000
            : typeof payload.timestamp === 'string'
              ? Date.parse(payload.timestamp)
              : Number.NaN;
        if (Number.isNaN(sentAt)) return refuse(res, 401, 'no signed timestamp');
        if (Math.abs(Date.now() - sentAt) > toleranceMs) return refuse(res, 401, 'timestamp outside the accepted window');
      }

      const deliveryHeader = req.headers['x-webhook-delivery'];
      const delivery = (Array.isArray(deliveryHeader) ? deliveryHeader[0] : deliveryHeader) ?? verification.webhookId;
      // webhook-id is covered by the Standard Webhooks signature; X-Webhook-Delivery is not, so prefer the former.
      const dedupKey = verification.webhookId ?? delivery;
      if (def.rejectDuplicates !== false && dedupKey !== undefined && !recent.remember(dedupKey)) {
        node.status({ fill: 'grey', shape: 'ring', text: RED._('crateflow-webhook.status.duplicate') });
        answer(res, 200, { received: true, duplicate: true });
        return;
      }

      // Acknowledge before the flow runs: Crateflow times out slow receivers and would deliver again.
      answer(res, 200, { received: true });
      if (events.length > 0 && !events.includes(event)) return;
      const msg: NodeMessage = { payload, event, delivery, topic: event };
      node.status({ fill: 'green', shape: 'dot', text: event });
      if (!def.splitOutputs) {
        node.send(msg);
        return;
      }
      const index = outputEvents.indexOf(event);
      if (index < 0) return;
      node.send(outputEvents.map((_, slot) => (slot === index ? msg : null)));
    };

    const handler: HttpHandler = (req, res) => {
      receive(req, res).catch((error: unknown) => {
        node.error(error instanceof Error ? error : String(error));
        if (!res.headersSent) answer(res, 500, { title: 'Internal Server Error', status: 500, detail: 'the receiver failed' });
      });
    };
    const releaseBody = keepBodyUnparsed(app, path);
    app.post(path, handler);
    node.status({});

    node.on('close', (_removed, done) => {
      removeRoute(app, handler);
      releaseBody();
      recent.clear();
      done();
    });
  }

  RED.nodes.registerType('crateflow-webhook', CrateflowWebhookNode);
};

function normalisePath(path: string | undefined): string {
  const trimmed = (path ?? '').trim() || '/crateflow';
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

function parseJson(body: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? { ...value } : undefined;
  } catch (error: unknown) {
    // A signed body that is not JSON is answered 400 by the caller; there is nothing else to do with it.
    return undefined;
  }
}
