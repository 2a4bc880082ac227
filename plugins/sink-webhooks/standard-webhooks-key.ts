import type { ConfigProblem } from '@crateflow/sdk';

/** How Standard Webhooks libraries write a signing secret: this prefix, then the key in base64. */
export const WHSEC_PREFIX = 'whsec_';

// Padded standard base64, the only form the official libraries decode (no URL-safe alphabet, no spaces).
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The HMAC key of the Standard Webhooks `webhook-signature`. A secret written the Standard Webhooks way
 * (`whsec_<base64>`) is the key in base64, as the official libraries read it, so the very same string works in
 * Crateflow and in a receiver's `new Webhook(secret)`. Any other secret is used as its UTF-8 bytes (a receiver
 * then gives the library `whsec_` + the base64 of those bytes). `X-Webhook-Signature` does not go through
 * here: the specification keys it with the secret exactly as written.
 */
export function standardWebhooksKey(secret: string): Buffer {
  return secret.startsWith(WHSEC_PREFIX) ? Buffer.from(secret.slice(WHSEC_PREFIX.length), 'base64') : Buffer.from(secret, 'utf8');
}

/**
 * Why a secret that claims the `whsec_` form cannot be one, or undefined. Such a secret would otherwise sign
 * with a key no receiver's library can derive from it: Node's base64 decoder skips what it does not know.
 */
export function whsecFormProblem(secret: string): string | undefined {
  if (!secret.startsWith(WHSEC_PREFIX)) return undefined;
  const encoded = secret.slice(WHSEC_PREFIX.length);
  if (encoded.length === 0 || !BASE64.test(encoded)) {
    return `starts with "${WHSEC_PREFIX}", so the rest must be the key in padded base64 (A-Z a-z 0-9 + / and = at the end), as Standard Webhooks libraries read it`;
  }
  return undefined;
}

/** One problem per configured secret in a broken `whsec_` form, located like the host's schema messages. */
export function secretFormProblems(webhooks: readonly { secret?: string | undefined }[]): ConfigProblem[] {
  return webhooks.flatMap((webhook, index) => {
    const problem = webhook.secret === undefined ? undefined : whsecFormProblem(webhook.secret);
    return problem ? [{ path: `[${index}].secret`, message: problem }] : [];
  });
}
