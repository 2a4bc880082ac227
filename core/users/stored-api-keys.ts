import { randomBytes } from 'node:crypto';
import { secretDigest } from '../auth/secret-digest.js';
import type { Clock, Identity, Scope } from '@crateflow/sdk';
import { NotFoundError } from '../errors/not-found-error.js';
import { StorageFullError } from '../errors/storage-full-error.js';
import type { Store } from '../storage/store.js';

/** A key made through the API, as stored (the key itself is shown once, when it is made, and never kept). */
export interface StoredApiKey {
  id: string;
  name: string;
  owner: string;
  scopes: Scope[];
  created_at: string;
}

export const MAX_STORED_KEYS = 1000;

/**
 * API keys an admin makes for a user (table `api_keys`). A key is 256 random bits, so its SHA-256 is kept instead
 * of a slow hash: guessing a key is as hopeless as inverting the digest. The digests are held in a map, looked up
 * by the presented key's digest: the lookup's timing depends on the digest, which tells nothing about any key.
 */
export class StoredApiKeys {
  private readonly byDigest = new Map<string, StoredApiKey>();
  private readonly statements;

  constructor(private readonly store: Store, private readonly clock: Clock, private readonly newId: () => string) {
    const db = store.db;
    this.statements = {
      all: db.prepare('SELECT digest, record FROM api_keys'),
      count: db.prepare('SELECT count(*) FROM api_keys').pluck(),
      insert: db.prepare('INSERT INTO api_keys (id, digest, owner, record) VALUES (?, ?, ?, ?)'),
      digestOf: db.prepare('SELECT digest FROM api_keys WHERE id = ?').pluck(),
      remove: db.prepare('DELETE FROM api_keys WHERE id = ?'),
      ownedBy: db.prepare('SELECT digest FROM api_keys WHERE owner = ?').pluck(),
      removeOwnedBy: db.prepare('DELETE FROM api_keys WHERE owner = ?'),
    };
    for (const row of this.statements.all.all() as { digest: string; record: string }[]) this.byDigest.set(row.digest, JSON.parse(row.record) as StoredApiKey);
  }

  get configured(): boolean {
    return this.byDigest.size > 0;
  }

  /** The identity a presented key acts as (its owner, narrowed to its scopes), or null. */
  recognise(presented: string): Identity | null {
    const key = this.byDigest.get(digestOf(presented));
    return key ? { name: key.owner, groups: [], scopes: key.scopes, via: 'api-key' } : null;
  }

  list(): StoredApiKey[] {
    return [...this.byDigest.values()].sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  /**
   * Makes a key; the answer holds the key itself, the only time it is seen. `ownerStillThere` is asked inside the
   * change (throwing refuses it): a user deleted at the same moment must not leave a key behind for a later namesake.
   */
  async create(owner: string, name: string, scopes: readonly Scope[], ownerStillThere: () => void): Promise<{ key: string; record: StoredApiKey }> {
    const key = `cf_${randomBytes(32).toString('base64url')}`;
    const digest = digestOf(key);
    const record: StoredApiKey = { id: this.newId(), name, owner, scopes: [...scopes], created_at: new Date(this.clock.now()).toISOString() };
    await this.store.change(({ afterCommit }) => {
      ownerStillThere();
      const held = Number(this.statements.count.get());
      if (held >= MAX_STORED_KEYS) throw new StorageFullError(held, MAX_STORED_KEYS, 1);
      this.statements.insert.run(record.id, digest, owner, JSON.stringify(record));
      afterCommit(() => this.byDigest.set(digest, record));
    });
    return { key, record };
  }

  async remove(id: string): Promise<void> {
    await this.store.change(({ afterCommit }) => {
      const digest = this.statements.digestOf.get(id) as string | undefined;
      if (digest === undefined) throw new NotFoundError('API key', id);
      this.statements.remove.run(id);
      afterCommit(() => this.byDigest.delete(digest));
    });
  }

  /** Removes every key of `owner`, inside the change that deletes the user. */
  removeOwnedBy(owner: string, afterCommit: (action: () => void) => void): void {
    const digests = this.statements.ownedBy.all(owner) as string[];
    this.statements.removeOwnedBy.run(owner);
    afterCommit(() => {
      for (const digest of digests) this.byDigest.delete(digest);
    });
  }
}

function digestOf(key: string): string {
  return secretDigest(key).toString('base64url');
}
