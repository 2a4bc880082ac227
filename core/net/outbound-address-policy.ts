import type { ConfigProblem } from '@crateflow/sdk';
import { CidrList, parseIp, type IpAddress } from './cidr.js';
import { embeddedIPv4 } from './embedded-ipv4.js';
import type { WebhooksPolicy } from './webhooks-policy.schema.js';

const LOOPBACK = ['127.0.0.0/8', '::1/128', '0.0.0.0/8', '::/128'];
const LAN = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', 'fc00::/7', 'fec0::/10'];

/**
 * The operator's `webhooks_policy`, as the function the webhooks plugin's HTTP client calls with every address
 * it is about to connect to. The plugin's own floor (link-local, cloud metadata) is checked first and cannot
 * be lifted here; this adds loopback, LAN and named-network rules on top. An IPv6 address that carries an IPv4
 * address to a translator (NAT64, 6to4, SIIT) is judged by both.
 */
export class OutboundAddressPolicy {
  private constructor(
    private readonly policy: WebhooksPolicy,
    private readonly allow: CidrList,
    private readonly block: CidrList,
  ) {}

  private static readonly loopback = CidrList.parse(LOOPBACK).list;
  private static readonly lan = CidrList.parse(LAN).list;

  /** Every entry of `allow_cidrs` / `block_cidrs` that is not a CIDR, as `webhooks_policy.block_cidrs[1]: …`. */
  static check(policy: WebhooksPolicy): ConfigProblem[] {
    const problems: ConfigProblem[] = [];
    const lists: [string, readonly string[]][] = [
      ['allow_cidrs', policy.allow_cidrs],
      ['block_cidrs', policy.block_cidrs],
    ];
    for (const [key, entries] of lists) {
      for (const { index, entry } of CidrList.parse(entries).invalid) {
        problems.push({ path: `webhooks_policy.${key}[${index}]`, message: `"${entry}" is not a CIDR (like 192.168.1.0/24 or fd00::/8)` });
      }
    }
    return problems;
  }

  /** Builds the policy; call {@link check} first (entries that are not CIDRs are left out here). */
  static from(policy: WebhooksPolicy): OutboundAddressPolicy {
    return new OutboundAddressPolicy(policy, CidrList.parse(policy.allow_cidrs).list, CidrList.parse(policy.block_cidrs).list);
  }

  /** Why connecting to `address` is refused, or undefined when allowed. Names (not addresses) are not judged. */
  readonly refuse = (address: string): string | undefined => {
    const parsed = parseIp(address.replace(/^\[|\]$/g, ''));
    if (!parsed) return undefined;
    const forms = [parsed, ...embeddedIPv4(parsed)];
    for (const form of forms) {
      if (this.block.containsAddress(form)) return 'inside webhooks_policy.block_cidrs';
    }
    if (forms.some((form) => this.allow.containsAddress(form))) return undefined;
    for (const form of forms) {
      const reason = this.category(form);
      if (reason) return reason;
    }
    return undefined;
  };

  private category(address: IpAddress): string | undefined {
    if (this.policy.loopback === 'block' && OutboundAddressPolicy.loopback.containsAddress(address)) {
      return 'loopback address (webhooks_policy.loopback: block)';
    }
    if (this.policy.lan === 'block' && OutboundAddressPolicy.lan.containsAddress(address)) return 'LAN address (webhooks_policy.lan: block)';
    return undefined;
  }
}
