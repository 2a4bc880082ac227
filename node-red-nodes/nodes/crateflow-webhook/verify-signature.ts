import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export type Verification =
  | { ok: true; schemes: Array<'x-webhook-signature' | 'standard-webhooks'>; webhookId?: string; timestampSeconds?: number }
  | { ok: false; reason: string };

/**
 * Checks a Crateflow delivery against the shared secret (CONTRACT §4). Two schemes may be present:
 * `X-Webhook-Signature` (lowercase hex HMAC-SHA256 of the exact body bytes) and the Standard Webhooks headers
 * (`webhook-signature: v1,<base64 HMAC of "id.timestamp.body">`, several space-separated during key rotation).
 * At least one must be present and every one that is present must match. Comparisons are constant-time.
 */
export function verifySignature(secret: string, headers: IncomingHttpHeaders, body: Buffer): Verification {
  const hex = header(headers, 'x-webhook-signature');
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  const standardParts = [id, timestamp, signatures].filter((value) => value !== undefined).length;
  if (hex === undefined && standardParts === 0) return { ok: false, reason: 'missing signature' };
  if (hex === undefined && standardParts < 3) return { ok: false, reason: 'incomplete Standard Webhooks headers' };

  const schemes: Array<'x-webhook-signature' | 'standard-webhooks'> = [];
  if (hex !== undefined) {
    if (!matchesHex(secret, body, hex)) return { ok: false, reason: 'signature does not match' };
    schemes.push('x-webhook-signature');
  }
  if (id !== undefined && timestamp !== undefined && signatures !== undefined) {
    if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'webhook-timestamp is not a unix time in seconds' };
    const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`), body]);
    if (!matchesStandard(secret, signed, signatures)) return { ok: false, reason: 'signature does not match' };
    schemes.push('standard-webhooks');
    return { ok: true, schemes, webhookId: id, timestampSeconds: Number(timestamp) };
  }
  return { ok: true, schemes };
}

function matchesHex(secret: string, body: Buffer, given: string): boolean {
  const want = createHmac('sha256', secret).update(body).digest();
  const got = /^[0-9a-f]{64}$/i.test(given.trim()) ? Buffer.from(given.trim(), 'hex') : Buffer.alloc(0);
  return got.length === want.length && timingSafeEqual(got, want);
}

function matchesStandard(secret: string, signed: Buffer, signatures: string): boolean {
  const wanted = standardKeys(secret).map((key) => createHmac('sha256', key).update(signed).digest());
  let matched = false;
  for (const entry of signatures.split(' ')) {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || !value) continue;
    const got = Buffer.from(value, 'base64');
    // Keep comparing after a match, so the time taken does not tell which candidate matched.
    for (const want of wanted) if (got.length === want.length && timingSafeEqual(got, want)) matched = true;
  }
  return matched;
}

/**
 * Crateflow keys `webhook-signature` with a plain secret's UTF-8 bytes, and with the decoded bytes of a secret
 * written the Standard Webhooks way (`whsec_<base64>`), as those libraries do. For a `whsec_` secret both keys
 * are tried, so deliveries from servers that predate that rule (which used the UTF-8 bytes) verify too.
 */
function standardKeys(secret: string): Buffer[] {
  const keys = [Buffer.from(secret, 'utf8')];
  if (secret.startsWith('whsec_')) keys.push(Buffer.from(secret.slice('whsec_'.length), 'base64'));
  return keys;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
