import { timingSafeEqual } from 'node:crypto';
import { hashSecret, verifySecret, type Clock, type Identity, type LocalAccounts } from '@crateflow/sdk';
import { secretDigest } from '../auth/secret-digest.js';
import { ConflictError } from '../errors/conflict-error.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { StorageFullError } from '../errors/storage-full-error.js';
import { ValidationError } from '../errors/validation-error.js';
import type { CredentialCheckGate } from '../auth/credential-check-gate.js';
import type { Store } from '../storage/store.js';
import type { CreateUserBody, UpdateUserBody, UserRecord } from './user.schema.js';

/** Accounts and profiles an admin may keep: a household, with room for a club. */
export const MAX_USERS = 1000;

/**
 * The users an admin manages (table `users`), kept in memory as well: every authenticated request asks for its
 * user's profile (role, disabled), and a lookup must not cost a query. The map changes only after the commit that
 * changed the table is on disk, so a refused write leaves no trace in either.
 *
 * The basic-auth user of config.yaml (`configUser`) is the first admin: always there, always admin, edited only in
 * config.yaml, so no row may take its name.
 */
export class UserDirectory implements LocalAccounts {
  private readonly users = new Map<string, UserRecord>();
  private readonly statements;
  /** Per user, the digest of the password that last matched their hash (which it is valid for). */
  private readonly verified = new Map<string, { hash: string; digest: Buffer }>();
  // An unknown name is checked against this hash, so its answer takes as long as a wrong password's.
  private decoyHash: Promise<string> | undefined;

  /**
   * `reservedNames`: names config.yaml gives to API keys that act under their own name; a user of that name would
   * take such a key over. They, and config's admin, are refused as user names in any letter case.
   */
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    readonly configUser: string | undefined,
    private readonly reservedNames: readonly string[] = [],
    /**
     * Where a new password is hashed: the gate the authenticator checks passwords behind (scrypt fills the thread
     * pool the store and /health need). check() is not gated here: an auth plugin calls it inside that gate already.
     */
    private readonly hashing: Pick<CredentialCheckGate, 'run'> = { run: (work) => work() },
  ) {
    const db = store.db;
    this.statements = {
      all: db.prepare('SELECT record FROM users').pluck(),
      exists: db.prepare('SELECT 1 FROM users WHERE name = ?').pluck(),
      // "Alice" and "alice" would be two accounts people cannot tell apart in a list or a decided_by.
      existsInAnyCase: db.prepare('SELECT name FROM users WHERE name = ? COLLATE NOCASE').pluck(),
      get: db.prepare('SELECT record FROM users WHERE name = ?').pluck(),
      count: db.prepare('SELECT count(*) FROM users').pluck(),
      insert: db.prepare('INSERT INTO users (name, record) VALUES (?, ?)'),
      update: db.prepare('UPDATE users SET record = ? WHERE name = ?'),
      remove: db.prepare('DELETE FROM users WHERE name = ?'),
    };
    for (const record of this.statements.all.all() as string[]) {
      const user = JSON.parse(record) as UserRecord;
      this.users.set(user.name, user);
    }
  }

  /** The stored profile of `name` (a local account or a proxy user's), undefined for anyone else. */
  profileOf(name: string): UserRecord | undefined {
    return this.users.get(name);
  }

  isConfigUser(name: string): boolean {
    return this.configUser !== undefined && name === this.configUser;
  }

  /** Every stored user, by name. */
  list(): UserRecord[] {
    return [...this.users.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Adds a local account (with a password) or a proxy user's profile (without). */
  async create(body: CreateUserBody): Promise<UserRecord> {
    const lower = body.name.toLowerCase();
    if (this.configUser?.toLowerCase() === lower) throw this.configUserConflict(this.configUser);
    if (this.reservedNames.some((name) => name.toLowerCase() === lower)) {
      throw new ConflictError(`"${body.name}" is the name of an API key in config.yaml (ui.auth.api_keys); choose another name, or give that key a user`, { name: body.name });
    }
    if (body.password === undefined && body.role === undefined && body.auto_approve === undefined && body.quota === undefined && body.notify === undefined) {
      throw new ValidationError([{ path: 'body', message: 'give a password (a local account) or something to set for a proxy user (role, auto_approve, quota, notify)' }]);
    }
    // Hashed before the transaction: scrypt runs on the thread pool and must not hold the store's commit.
    const password = body.password;
    const passwordHash = password === undefined ? undefined : await this.hashing.run(() => hashSecret(password));
    const now = this.clock.now();
    const { password: _password, ...settings } = body;
    // A local account without a role would fall back to the group rules meant for proxy users: it requests.
    const role = body.role ?? (passwordHash === undefined ? undefined : 'requester');
    const user: UserRecord = {
      ...settings,
      ...(role === undefined ? {} : { role }),
      ...(passwordHash === undefined ? {} : { password_hash: passwordHash }),
      credentials_changed_at: now,
      created_at: new Date(now).toISOString(),
      updated_at: new Date(now).toISOString(),
    };
    return this.store.change(({ afterCommit }) => {
      const taken = this.statements.existsInAnyCase.get(user.name) as string | undefined;
      if (taken !== undefined) throw new ConflictError(`a user named "${taken}" exists already`, { name: taken });
      const held = Number(this.statements.count.get());
      if (held >= MAX_USERS) throw new StorageFullError(held, MAX_USERS, 1);
      this.statements.insert.run(user.name, JSON.stringify(user));
      afterCommit(() => this.users.set(user.name, user));
      return user;
    });
  }

  /** Changes what `patch` names; null clears an override. A new password ends the sessions signed in before it. */
  async update(name: string, patch: UpdateUserBody, actingUser: string | undefined): Promise<UserRecord> {
    if (this.isConfigUser(name)) throw this.configUserConflict(name);
    if (patch.disabled === true && name === actingUser) throw new ConflictError('you cannot disable your own account', { name });
    const password = patch.password;
    const passwordHash = password === undefined ? undefined : await this.hashing.run(() => hashSecret(password));
    const now = this.clock.now();
    return this.store.change(({ afterCommit }) => {
      const current = this.read(name);
      const { password: _password, ...fields } = patch;
      const next: Record<string, unknown> = { ...current, updated_at: new Date(now).toISOString() };
      for (const [key, value] of Object.entries(fields)) {
        if (value === null) delete next[key];
        else next[key] = value;
      }
      if (passwordHash !== undefined) {
        next.password_hash = passwordHash;
        next.credentials_changed_at = now;
      }
      // Disabling ends sessions too: enabled again later, the account signs in afresh.
      if (patch.disabled === true) next.credentials_changed_at = now;
      if (patch.disabled === false) delete next.disabled;
      const user = next as unknown as UserRecord;
      if (user.password_hash !== undefined && user.role === undefined) throw new ValidationError([{ path: 'body.role', message: 'a local account needs a role' }]);
      this.statements.update.run(JSON.stringify(user), name);
      afterCommit(() => this.users.set(name, user));
      return user;
    });
  }

  /** Deletes a user; `alsoInTransaction` removes what they own (their stored API keys) in the same commit. */
  async remove(name: string, actingUser: string | undefined, alsoInTransaction: (afterCommit: (action: () => void) => void) => void): Promise<void> {
    if (this.isConfigUser(name)) throw this.configUserConflict(name);
    if (name === actingUser) throw new ConflictError('you cannot delete your own account', { name });
    await this.store.change(({ afterCommit }) => {
      this.read(name);
      this.statements.remove.run(name);
      alsoInTransaction(afterCommit);
      afterCommit(() => this.users.delete(name));
    });
  }

  async check(username: string, password: string, via: Identity['via']): Promise<{ identity: Identity; stamp: string } | null> {
    const user = this.users.get(username);
    const presented = secretDigest(password);
    const hash = user?.password_hash ?? (await this.decoy());
    // HTTP Basic sends the password with every request: once it matched this hash, its digest is enough.
    const remembered = user ? this.verified.get(user.name) : undefined;
    const known = remembered !== undefined && remembered.hash === hash && timingSafeEqual(remembered.digest, presented);
    const matches = known || (await verifySecret(password, hash));
    if (!matches || !user?.password_hash) return null;
    if (!known) this.verified.set(user.name, { hash, digest: presented });
    // Read again after the hash: a reset or a disable that committed meanwhile wins over the old password.
    const current = this.users.get(username);
    if (current?.password_hash !== hash || current.disabled) return null;
    return { identity: identityOf(current, via), stamp: stampOf(current) };
  }

  identityOf(username: string, stamp: string, via: Identity['via']): Identity | null {
    const user = this.users.get(username);
    if (!user?.password_hash || user.disabled || !constantTimeEqual(stamp, stampOf(user))) return null;
    return identityOf(user, via);
  }

  /** The hash an unknown name is checked against (made once; made again should making it ever fail). */
  private decoy(): Promise<string> {
    this.decoyHash ??= hashSecret('decoy password nobody has').catch((err: unknown) => {
      this.decoyHash = undefined;
      throw err;
    });
    return this.decoyHash;
  }

  /** Inside a change: whether `name` may own things now (an API key): a stored user with a role, or config's admin. */
  mayOwnKeys(name: string): boolean {
    if (this.isConfigUser(name)) return true;
    const record = this.statements.get.get(name) as string | undefined;
    return record !== undefined && (JSON.parse(record) as UserRecord).role !== undefined;
  }

  /** The stored record, read inside a change: an earlier change in the same commit is seen, the map is not yet. */
  private read(name: string): UserRecord {
    const record = this.statements.get.get(name) as string | undefined;
    if (record === undefined) throw new NotFoundError('user', name);
    return JSON.parse(record) as UserRecord;
  }

  private configUserConflict(name: string): ConflictError {
    return new ConflictError(`"${name}" is the admin of config.yaml (ui.auth.username); change it there`, { name });
  }
}

/**
 * What a session keeps of the credentials it signed in with: their hash and when they last changed (a password set,
 * the account disabled). Either changing ends the session, even one signed in while the change was committed.
 */
function stampOf(user: UserRecord): string {
  return secretDigest(`${user.password_hash ?? ''}|${user.credentials_changed_at}`).toString('base64url');
}

function constantTimeEqual(a: string, b: string): boolean {
  return timingSafeEqual(secretDigest(a), secretDigest(b));
}


function identityOf(user: UserRecord, via: Identity['via']): Identity {
  return { name: user.name, ...(user.display_name ? { display_name: user.display_name } : {}), groups: [], ...(user.role ? { role: user.role } : {}), via };
}
