import { createHmac } from 'node:crypto';
import { standardWebhooksKey } from './standard-webhooks-key.js';

/** What goes into the headers of one attempt. */
export interface SignInput {
  body: string;
  event: string;
  deliveryId: string;
  secret: string | undefined;
  /** Unix seconds of this attempt (Standard Webhooks `webhook-timestamp`). */
  timestampSeconds: number;
}

/**
 * The headers of one attempt besides User-Agent (which the HTTP client sets). Without a secret there is no
 * signature header at all. With one, `X-Webhook-Signature` is the specification's lowercase hex HMAC-SHA256 of
 * the exact body, keyed with the secret as written, and the Standard Webhooks trio signs `id.timestamp.body`
 * so receivers can reject replays, keyed the way Standard Webhooks libraries read the secret (see
 * standardWebhooksKey: a `whsec_` secret is a base64 key, any other is its UTF-8 bytes).
 */
export function deliveryHeaders(input: SignInput): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'X-Webhook-Event': input.event,
    'X-Webhook-Delivery': input.deliveryId,
  };
  if (input.secret === undefined) return headers;
  const timestamp = String(input.timestampSeconds);
  headers['X-Webhook-Signature'] = createHmac('sha256', input.secret).update(input.body, 'utf8').digest('hex');
  headers['webhook-id'] = input.deliveryId;
  headers['webhook-timestamp'] = timestamp;
  const signed = createHmac('sha256', standardWebhooksKey(input.secret)).update(`${input.deliveryId}.${timestamp}.${input.body}`, 'utf8').digest('base64');
  headers['webhook-signature'] = `v1,${signed}`;
  return headers;
}
