import type { ConfigProblem } from '@crateflow/sdk';
import type { AddressPolicy } from './address-policy.schema.js';
import { CidrList, parseIp, type IpAddress } from './cidr.js';
import { embeddedIPv4 } from './embedded-ipv4.js';

const LOOPBACK = ['127.0.0.0/8', '::1/128', '0.0.0.0/8', '::/128'];
const LAN = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', 'fc00::/7', 'fec0::/10'];
// The floor no key lifts. Link-local ranges hold the cloud metadata services (169.254.169.254 on AWS, GCP, Azure),
// whose answers include credentials; the single addresses are AWS's IPv6 IMDS, Alibaba Cloud's and Azure's WireServer
// (the same list as the webhooks plugin's floor, plugins/sink-webhooks/address-policy.ts).
const LINK_LOCAL = ['169.254.0.0/16', 'fe80::/10'];
const METADATA = ['100.100.100.200/32', '168.63.129.16/32', 'fd00:ec2::254/128'];

/**
 * An operator's address policy (`webhooks_policy`, `metadata_policy`), as the function an HTTP client calls with
 * every address it is about to connect to (literal, or each DNS answer). Link-local and cloud-metadata addresses are
 * always refused; then `block_cidrs`, `allow_cidrs` and the loopback and LAN switches decide. An IPv6 address that
 * carries an IPv4 address to a translator (NAT64, 6to4, SIIT) is judged by both.
 */
export class OutboundAddressPolicy {
  private constructor(
    private readonly policy: AddressPolicy,
    private readonly key: string,
    private readonly allow: CidrList,
    private readonly block: CidrList,
  ) {}

  private static readonly loopback = CidrList.parse(LOOPBACK).list;
  private static readonly lan = CidrList.parse(LAN).list;
  private static readonly linkLocal = CidrList.parse(LINK_LOCAL).list;
  private static readonly metadata = CidrList.parse(METADATA).list;

  /** Every entry of `allow_cidrs` / `block_cidrs` that is not a CIDR, as `<key>.block_cidrs[1]: …`. */
  static check(policy: AddressPolicy, key = 'webhooks_policy'): ConfigProblem[] {
    const problems: ConfigProblem[] = [];
    const lists: [string, readonly string[]][] = [
      ['allow_cidrs', policy.allow_cidrs],
      ['block_cidrs', policy.block_cidrs],
    ];
    for (const [list, entries] of lists) {
      for (const { index, entry } of CidrList.parse(entries).invalid) {
        problems.push({ path: `${key}.${list}[${index}]`, message: `"${entry}" is not a CIDR (like 192.168.1.0/24 or fd00::/8)` });
      }
    }
    return problems;
  }

  /** Builds the policy of config key `key`; call {@link check} first (entries that are not CIDRs are left out here). */
  static from(policy: AddressPolicy, key = 'webhooks_policy'): OutboundAddressPolicy {
    return new OutboundAddressPolicy(policy, key, CidrList.parse(policy.allow_cidrs).list, CidrList.parse(policy.block_cidrs).list);
  }

  /** The config key the policy comes from, as its refusals name it. */
  get configKey(): string {
    return this.key;
  }

  /** Why connecting to `address` is refused, or undefined when allowed. Names (not addresses) are not judged. */
  readonly refuse = (address: string): string | undefined => {
    const forms = formsOf(address);
    const fixed = this.refuseAlways(forms);
    if (fixed) return fixed;
    if (forms.some((form) => this.allow.containsAddress(form))) return undefined;
    for (const form of forms) {
      const reason = this.category(form);
      if (reason) return reason;
    }
    return undefined;
  };

  /**
   * The same for an upstream the operator named in config (a MusicBrainz mirror on the LAN, a test fake on
   * loopback): only the metadata floor and `block_cidrs` apply, since naming it is the operator's permission.
   */
  readonly refuseNamedUpstream = (address: string): string | undefined => this.refuseAlways(formsOf(address));

  private refuseAlways(forms: readonly IpAddress[]): string | undefined {
    for (const form of forms) {
      if (OutboundAddressPolicy.linkLocal.containsAddress(form)) return 'link-local address (169.254.0.0/16, fe80::/10: cloud metadata)';
      if (OutboundAddressPolicy.metadata.containsAddress(form)) return 'cloud metadata address';
    }
    for (const form of forms) {
      if (this.block.containsAddress(form)) return `inside ${this.key}.block_cidrs`;
    }
    return undefined;
  }

  private category(address: IpAddress): string | undefined {
    if (this.policy.loopback === 'block' && OutboundAddressPolicy.loopback.containsAddress(address)) {
      return `loopback address (${this.key}.loopback: block)`;
    }
    if (this.policy.lan === 'block' && OutboundAddressPolicy.lan.containsAddress(address)) return `LAN address (${this.key}.lan: block)`;
    return undefined;
  }
}

/** The address and every IPv4 address it carries; none for a name. */
function formsOf(address: string): IpAddress[] {
  const parsed = parseIp(address.replace(/^\[|\]$/g, ''));
  return parsed ? [parsed, ...embeddedIPv4(parsed)] : [];
}
