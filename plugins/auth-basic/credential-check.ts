import { createHash, timingSafeEqual } from 'node:crypto';
import { verifySecret } from '@crateflow/sdk';

/** The configured account: a username and either a plain password or an scrypt PHC hash of it. */
export interface Account {
  username: string;
  password?: string;
  password_hash?: string;
}

/**
 * Checks a username and password against the configured account in constant time. Values are compared as
 * SHA-256 digests (timingSafeEqual needs equal lengths, and digests do not reveal the secret's length); the
 * password is checked even when the username is wrong, so timing does not tell which one failed. scrypt is
 * slow, so the digest of the last password that matched the hash is remembered: HTTP Basic clients send it on
 * every request.
 */
export class CredentialCheck {
  private readonly username: Buffer;
  private readonly password: Buffer | undefined;
  private verifiedPassword: Buffer | undefined;

  constructor(private readonly account: Account) {
    this.username = sha256(account.username);
    this.password = account.password === undefined ? undefined : sha256(account.password);
  }

  async matches(username: string, password: string): Promise<boolean> {
    const userOk = timingSafeEqual(sha256(username), this.username);
    const passwordOk = await this.passwordMatches(password);
    return userOk && passwordOk;
  }

  private async passwordMatches(password: string): Promise<boolean> {
    const presented = sha256(password);
    if (this.password) return timingSafeEqual(presented, this.password);
    if (this.verifiedPassword && timingSafeEqual(presented, this.verifiedPassword)) return true;
    const ok = this.account.password_hash !== undefined && (await verifySecret(password, this.account.password_hash));
    if (ok) this.verifiedPassword = presented;
    return ok;
  }
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
