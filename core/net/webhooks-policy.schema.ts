import { Type, type Static } from 'typebox';

const AllowOrBlock = (what: string) =>
  Type.Union([Type.Literal('allow'), Type.Literal('block')], { default: 'allow', description: `allow or block webhook targets on ${what}` });

/**
 * `webhooks_policy` in config.yaml: where webhooks (and the live webhook test) may connect, checked on the
 * address actually connected to after DNS. Link-local and cloud-metadata addresses are always refused; this
 * only decides about loopback, the LAN and named networks.
 */
export const WebhooksPolicy = Type.Object(
  {
    loopback: AllowOrBlock('this machine (127.0.0.0/8, ::1, 0.0.0.0/8, ::)'),
    lan: AllowOrBlock('private networks (10/8, 172.16/12, 192.168/16, 100.64/10 carrier-grade NAT, fc00::/7, fec0::/10)'),
    allow_cidrs: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description: 'networks allowed even when loopback or lan is blocked, e.g. ["192.168.1.20/32"] for one Home Assistant (never metadata addresses)',
    }),
    block_cidrs: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description: 'networks always refused, e.g. ["10.0.0.0/8"]; wins over allow_cidrs',
    }),
  },
  { additionalProperties: false, default: {} },
);
export type WebhooksPolicy = Static<typeof WebhooksPolicy>;
