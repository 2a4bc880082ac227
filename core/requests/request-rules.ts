import type { Role } from '@crateflow/sdk';
import type { AppConfig } from '../config/app-config.schema.js';
import { parseDuration } from '../config/parse-duration.js';
import type { RequestTerms } from '../queue/queue-service.js';
import type { UserDirectory } from '../users/user-directory.js';

type RequestsConfig = AppConfig['requests'];
type Quota = NonNullable<RequestsConfig['quota']>;

/**
 * The household's rules for requests (config `requests:`, and what an admin set for one user): whether a user's
 * requests are approved without an admin, and how many of them in what window.
 */
export class RequestRules {
  constructor(private readonly config: RequestsConfig, private readonly users: UserDirectory) {}

  /** Whether the auto-approve rule applies to `name` with `role`: their own setting, else `requests.auto_approve`. */
  autoApproves(name: string, role: Role | undefined): boolean {
    const own = this.users.profileOf(name)?.auto_approve;
    if (own !== undefined) return own;
    return this.config.auto_approve.includes(name) || (role !== undefined && this.config.auto_approve.includes(`role:${role}`));
  }

  /** The quota of `name`: their own, else `requests.quota`; undefined when there is none. */
  quotaOf(name: string): Quota | undefined {
    return this.users.profileOf(name)?.quota ?? this.config.quota;
  }

  /** The terms of a request by `name`. */
  termsFor(name: string, role: Role | undefined): RequestTerms {
    const quota = this.quotaOf(name);
    return {
      requester: name,
      autoApprove: this.autoApproves(name, role),
      maxWaiting: this.config.max_waiting,
      ...(quota === undefined ? {} : { quota: { albums: quota.albums, perMs: parseDuration(quota.per) } }),
    };
  }
}
