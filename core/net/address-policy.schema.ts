import { Type, type Static } from 'typebox';

export interface AddressPolicyWording {
  /** What the policy decides about, e.g. "webhook targets". */
  readonly what: string;
  /** Whether loopback and LAN are allowed when the operator says nothing. */
  readonly fallback: 'allow' | 'block';
  /** An example of one host opened by `allow_cidrs`. */
  readonly allowExample: string;
}

/**
 * The shape of an outbound address policy in config.yaml (`webhooks_policy`, `metadata_policy`): switches for
 * loopback and the LAN plus named networks, checked on the address actually connected to after DNS. Link-local and
 * cloud-metadata addresses are always refused (OutboundAddressPolicy); no key here can open them.
 */
export function addressPolicySchema(wording: AddressPolicyWording) {
  const allowOrBlock = (range: string) =>
    Type.Union([Type.Literal('allow'), Type.Literal('block')], { default: wording.fallback, description: `allow or block ${wording.what} on ${range}` });
  return Type.Object(
    {
      loopback: allowOrBlock('this machine (127.0.0.0/8, ::1, 0.0.0.0/8, ::)'),
      lan: allowOrBlock('private networks (10/8, 172.16/12, 192.168/16, 100.64/10 carrier-grade NAT, fc00::/7, fec0::/10)'),
      allow_cidrs: Type.Array(Type.String({ minLength: 1 }), {
        default: [],
        description: `networks allowed even when loopback or lan is blocked, e.g. ${wording.allowExample} (never metadata addresses)`,
      }),
      block_cidrs: Type.Array(Type.String({ minLength: 1 }), {
        default: [],
        description: 'networks always refused, e.g. ["10.0.0.0/8"]; wins over allow_cidrs',
      }),
    },
    { additionalProperties: false, default: {} },
  );
}

const AddressPolicy = addressPolicySchema({ what: 'targets', fallback: 'allow', allowExample: '["192.168.1.20/32"]' });
/** Any of the policies above, as validated (defaults applied). */
export type AddressPolicy = Static<typeof AddressPolicy>;
