import { createHash, timingSafeEqual } from 'node:crypto';
import type { Identity, Role } from '@crateflow/sdk';
import type { ApiKeyConfig } from '../config/app-config.schema.js';

/**
 * Recognises the API keys of `ui.auth.api_keys`. Keys are compared as SHA-256 digests with timingSafeEqual, so
 * the comparison takes the same time whatever the key's length or content.
 */
export class ApiKeyVerifier {
  private readonly keys: { name: string; role: Role; digest: Buffer }[];

  constructor(keys: readonly ApiKeyConfig[]) {
    this.keys = keys.flatMap((k) => (k.key ? [{ name: k.name, role: k.role, digest: sha256(k.key) }] : []));
  }

  get configured(): boolean {
    return this.keys.length > 0;
  }

  /** The API key a request carries (`Authorization: Bearer …` or `X-API-Key`), if any. */
  static presented(headers: Readonly<Record<string, string | string[] | undefined>>): string | undefined {
    const header = headers['x-api-key'];
    if (typeof header === 'string' && header.length > 0) return header;
    const authorization = headers.authorization;
    if (typeof authorization === 'string' && /^bearer /i.test(authorization)) return authorization.slice(7).trim() || undefined;
    return undefined;
  }

  verify(presented: string): Identity | null {
    const digest = sha256(presented);
    let match: { name: string; role: Role } | undefined;
    for (const key of this.keys) {
      // Check every key (no early exit) so timing does not reveal which entry matched.
      if (timingSafeEqual(key.digest, digest) && !match) match = key;
    }
    return match ? { name: match.name, groups: [], role: match.role, via: 'api-key' } : null;
  }
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
