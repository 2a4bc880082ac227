import { createHmac, randomUUID } from 'node:crypto';

export interface SignedDelivery {
  body: string;
  headers: Record<string, string>;
}

export interface SignOptions {
  /** Which signature headers to send (default both, as Crateflow does). */
  schemes?: Array<'hex' | 'standard'>;
  deliveryId?: string;
  /** Unix seconds for `webhook-timestamp` (default now). */
  timestampSeconds?: number;
}

/** Signs a delivery the way CONTRACT §4 describes, written independently of the receiver under test. */
export function signWebhook(secret: string, payload: unknown, options: SignOptions = {}): SignedDelivery {
  const body = JSON.stringify(payload);
  const id = options.deliveryId ?? randomUUID();
  const timestamp = String(options.timestampSeconds ?? Math.floor(Date.now() / 1000));
  const schemes = options.schemes ?? ['hex', 'standard'];
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-webhook-delivery': id };
  if (schemes.includes('hex')) headers['x-webhook-signature'] = createHmac('sha256', secret).update(body).digest('hex');
  if (schemes.includes('standard')) {
    headers['webhook-id'] = id;
    headers['webhook-timestamp'] = timestamp;
    headers['webhook-signature'] = `v1,${createHmac('sha256', secret).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
  }
  return { body, headers };
}

/** A Crateflow event body: `{event, timestamp, data}`. */
export function crateflowEvent(event: string, data: Record<string, unknown>, at = new Date()): Record<string, unknown> {
  return { event, timestamp: at.toISOString(), data };
}
