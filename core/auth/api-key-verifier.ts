import { timingSafeEqual } from 'node:crypto';
import { isSecretHash, ROLE_SCOPES, verifySecret, type Identity, type Role, type Scope } from '@crateflow/sdk';
import { secretDigest } from './secret-digest.js';
import type { ApiKeyConfig } from '../config/app-config.schema.js';
import type { PathProblem } from '../schema/format-schema-errors.js';

interface KnownKey {
  name: string;
  role: Role;
  user: string | undefined;
  scopes: Scope[] | undefined;
  /** SHA-256 of the key: configured for `key`, learned after the first successful scrypt check for `key_hash`. */
  digest: Buffer | undefined;
  hash: string | undefined;
}

/**
 * Recognises the API keys of `ui.auth.api_keys`, written as `key` or as `key_hash` (scrypt PHC). Keys are
 * compared as SHA-256 digests with timingSafeEqual, so the comparison takes the same time whatever the key's
 * length or content. scrypt takes tens of milliseconds, so once a presented key has matched a `key_hash`, its
 * digest is remembered and later requests compare digests only.
 */
export class ApiKeyVerifier {
  private readonly keys: KnownKey[];
  private readonly inFlight = new Map<string, Promise<Identity | null>>();

  constructor(keys: readonly ApiKeyConfig[]) {
    this.keys = keys.map((k) => ({ name: k.name, role: k.role, user: k.user, scopes: k.scopes, digest: k.key === undefined ? undefined : secretDigest(k.key), hash: k.key_hash }));
  }

  /** Config problems: each key needs exactly one of `key` and `key_hash`, and a hash must be a PHC scrypt string. */
  static check(keys: readonly ApiKeyConfig[], path = 'ui.auth.api_keys'): PathProblem[] {
    return keys.flatMap((k, i): PathProblem[] => {
      if (k.key === undefined && k.key_hash === undefined) return [{ path: `${path}[${i}]`, message: 'set key or key_hash' }];
      if (k.key !== undefined && k.key_hash !== undefined) return [{ path: `${path}[${i}]`, message: 'set key or key_hash, not both' }];
      if (k.key_hash !== undefined && !isSecretHash(k.key_hash)) {
        return [{ path: `${path}[${i}].key_hash`, message: 'must be an scrypt PHC string as printed by crateflow hash-password' }];
      }
      // A scope beyond the role would be dropped without a word: say so at start-up instead.
      const beyond = (k.scopes ?? []).filter((scope) => !ROLE_SCOPES[k.role].includes(scope));
      if (beyond.length > 0) return [{ path: `${path}[${i}].scopes`, message: `${beyond.join(', ')} ${beyond.length === 1 ? 'is' : 'are'} beyond the role ${k.role}; set role: ${beyond.includes('admin') ? 'admin' : 'approver'}` }];
      return [];
    });
  }

  get configured(): boolean {
    return this.keys.length > 0;
  }

  /** The API key a request carries (`X-API-Key`, or `Authorization: Bearer …`), if any. */
  static presented(headers: Readonly<Record<string, string | undefined>>): string | undefined {
    const header = headers['x-api-key']?.trim();
    if (header) return header;
    const bearer = /^bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
    return bearer?.[1];
  }

  /** Whether an unknown key costs scrypt checks: some `key_hash` has not been matched since start. */
  get hasUnverifiedHashes(): boolean {
    return this.keys.some((key) => !key.digest && key.hash !== undefined);
  }

  /** The identity of a presented key (its name, its role), or null. */
  async verify(presented: string): Promise<Identity | null> {
    return this.recognise(presented) ?? (await this.verifyHashed(presented));
  }

  /** The identity of a key known by digest (a plain `key`, or a `key_hash` matched before): no scrypt, no wait. */
  recognise(presented: string): Identity | null {
    const digest = secretDigest(presented);
    let match: KnownKey | undefined;
    for (const key of this.keys) {
      // Check every key (no early exit) so timing does not reveal which entry matched.
      if (key.digest && timingSafeEqual(key.digest, digest) && !match) match = key;
    }
    return match ? identityOf(match) : null;
  }

  /**
   * Checks a key against the `key_hash` entries not matched yet. Concurrent checks of the same key share one
   * run: a client that starts with 20 requests at once costs one round of scrypt, not 20.
   */
  private verifyHashed(presented: string): Promise<Identity | null> {
    const digest = secretDigest(presented);
    const id = digest.toString('hex');
    let pending = this.inFlight.get(id);
    if (!pending) {
      pending = this.scryptCheck(presented, digest).finally(() => this.inFlight.delete(id));
      this.inFlight.set(id, pending);
    }
    return pending;
  }

  private async scryptCheck(presented: string, digest: Buffer): Promise<Identity | null> {
    for (const key of this.keys) {
      if (!key.digest && key.hash && (await verifySecret(presented, key.hash))) {
        key.digest = digest;
        return identityOf(key);
      }
    }
    return null;
  }
}

/** A key acts as its user when it names one (requests and decisions are theirs), else under its own name. */
function identityOf(key: KnownKey): Identity {
  return { name: key.user ?? key.name, groups: [], role: key.role, ...(key.scopes ? { scopes: key.scopes } : {}), via: 'api-key' };
}

