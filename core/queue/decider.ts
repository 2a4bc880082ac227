import type { Identity } from '@crateflow/sdk';

/**
 * Who decided a queue item and through which channel: recorded on the item (`decided_by`, `decided_via`) and
 * carried by its `queue_approved` / `queue_rejected` event.
 */
export interface Decider {
  /** The user or key name, `link` for a decision link; absent when nobody is signed in (auth disabled). */
  by?: string;
  /** `web` (a browser session or the forward-auth proxy), `api` (HTTP Basic, an API key, or no auth), or the channel a decision link was sent to. */
  via: string;
  /** A decline's reason, shown to the requester (rejections only). */
  reason?: string;
  /** The requester took back their own request (a rejection by them). */
  cancelled?: boolean;
}

/** The reason recorded when requesters take back their own request (the requests list says "Cancelled by the requester"). */
export const CANCELLED_BY_REQUESTER = 'cancelled by the requester';

/** The decider of a request to the API. */
export function deciderOf(identity: Identity | null): Decider {
  const via = identity?.via === 'session' || identity?.via === 'proxy' ? 'web' : 'api';
  return identity ? { by: identity.name, via } : { via };
}
