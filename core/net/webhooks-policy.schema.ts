import type { Static } from 'typebox';
import { addressPolicySchema } from './address-policy.schema.js';

/**
 * `webhooks_policy` in config.yaml: where webhooks (and the live webhook test) may connect, checked on the
 * address actually connected to after DNS. Link-local and cloud-metadata addresses are always refused; this
 * only decides about loopback, the LAN and named networks. Both are allowed by default: home automation lives there.
 */
export const WebhooksPolicy = addressPolicySchema({ what: 'webhook targets', fallback: 'allow', allowExample: '["192.168.1.20/32"] for one Home Assistant' });
export type WebhooksPolicy = Static<typeof WebhooksPolicy>;
