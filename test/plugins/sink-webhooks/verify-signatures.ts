import { webcrypto } from 'node:crypto';

// An implementation of both signature checks written from the contract, independently of the plugin's code
// (WebCrypto rather than node:crypto's createHmac), as a receiver would write it.

async function hmac(secret: string, message: Uint8Array): Promise<Uint8Array> {
  const key = await webcrypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await webcrypto.subtle.sign('HMAC', key, message));
}

/** The expected `X-Webhook-Signature`: lowercase hex HMAC-SHA256 of the exact body bytes. */
export async function expectedHexSignature(secret: string, body: Uint8Array): Promise<string> {
  return Buffer.from(await hmac(secret, body)).toString('hex');
}

/** The expected Standard Webhooks `webhook-signature`: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`. */
export async function expectedStandardSignature(secret: string, id: string, timestamp: string, body: Uint8Array): Promise<string> {
  const prefix = new TextEncoder().encode(`${id}.${timestamp}.`);
  const message = new Uint8Array(prefix.length + body.length);
  message.set(prefix, 0);
  message.set(body, prefix.length);
  return `v1,${Buffer.from(await hmac(secret, message)).toString('base64')}`;
}
