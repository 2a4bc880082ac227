import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { OutboundAddressPolicy } from '../../../core/net/outbound-address-policy.js';
import type { WebhooksPolicy } from '../../../core/net/webhooks-policy.schema.js';

const policy = (overrides: Partial<WebhooksPolicy> = {}) =>
  OutboundAddressPolicy.from({ loopback: 'allow', lan: 'allow', allow_cidrs: [], block_cidrs: [], ...overrides });

describe('OutboundAddressPolicy (webhooks_policy)', () => {
  it('allows loopback, LAN and public addresses by default', () => {
    const open = policy();
    for (const address of ['127.0.0.1', '::1', '10.0.0.5', '192.168.1.20', 'fd00::1', '93.184.216.34']) assert.equal(open.refuse(address), undefined, address);
  });

  it('blocks loopback in every spelling with loopback: block, including 0.0.0.0 and loopback behind NAT64 or 6to4', () => {
    const closed = policy({ loopback: 'block' });
    for (const address of ['127.0.0.1', '127.8.9.10', '::1', '[::1]', '::ffff:127.0.0.1', '0.0.0.0', '::', '64:ff9b::7f00:1', '2002:7f00:1::1']) {
      assert.match(closed.refuse(address) ?? '', /loopback/, address);
    }
    assert.equal(closed.refuse('192.168.1.20'), undefined);
  });

  it('blocks private networks with lan: block, including ULA and LAN behind SIIT or local-use NAT64', () => {
    const closed = policy({ lan: 'block' });
    for (const address of ['10.1.2.3', '172.31.0.1', '192.168.1.20', '100.64.0.1', 'fd12::1', '::ffff:0:10.0.0.1', '64:ff9b:1::c0a8:114']) {
      assert.match(closed.refuse(address) ?? '', /LAN/, address);
    }
    assert.equal(closed.refuse('127.0.0.1'), undefined, 'loopback keeps its own switch');
    assert.equal(closed.refuse('8.8.8.8'), undefined);
  });

  it('lets allow_cidrs open one host inside a blocked category, and block_cidrs win over both', () => {
    const mixed = policy({ lan: 'block', allow_cidrs: ['192.168.1.20/32', '10.0.0.0/8'], block_cidrs: ['10.9.0.0/16', '203.0.113.0/24'] });
    assert.equal(mixed.refuse('192.168.1.20'), undefined);
    assert.match(mixed.refuse('192.168.1.21') ?? '', /LAN/);
    assert.equal(mixed.refuse('10.1.1.1'), undefined);
    assert.match(mixed.refuse('10.9.1.1') ?? '', /block_cidrs/);
    assert.match(mixed.refuse('203.0.113.7') ?? '', /block_cidrs/, 'a public network can be refused by name');
    assert.match(mixed.refuse('2002:cb00:7107::1') ?? '', /block_cidrs/, 'also when it hides behind 6to4');
  });

  it('reports every entry that is not a CIDR with its key path', () => {
    const problems = OutboundAddressPolicy.check({ loopback: 'allow', lan: 'allow', allow_cidrs: ['10.0.0.0/8', 'home'], block_cidrs: ['10.0.0.0/33'] });
    assert.deepEqual(
      problems.map((p) => p.path),
      ['webhooks_policy.allow_cidrs[1]', 'webhooks_policy.block_cidrs[0]'],
    );
    assert.match(problems[0]?.message ?? '', /"home" is not a CIDR/);
  });

  it('refuses link-local and cloud metadata addresses whatever the switches and allow_cidrs say', () => {
    const open = policy({ allow_cidrs: ['0.0.0.0/0', '::/0'] });
    for (const address of ['169.254.169.254', '169.254.0.1', 'fe80::1', '[fe80::1]', '::ffff:169.254.169.254', '64:ff9b::a9fe:a9fe', 'fd00:ec2::254', '100.100.100.200', '168.63.129.16']) {
      assert.match(open.refuse(address) ?? '', /link-local|cloud metadata/, address);
      assert.match(open.refuseNamedUpstream(address) ?? '', /link-local|cloud metadata/, `${address} as a named upstream`);
    }
  });

  it('names its own config key in refusals and problems (metadata_policy)', () => {
    const metadata = OutboundAddressPolicy.from({ loopback: 'block', lan: 'block', allow_cidrs: [], block_cidrs: ['203.0.113.0/24'] }, 'metadata_policy');
    assert.equal(metadata.refuse('127.0.0.1'), 'loopback address (metadata_policy.loopback: block)');
    assert.equal(metadata.refuse('10.255.255.1'), 'LAN address (metadata_policy.lan: block)');
    assert.equal(metadata.refuse('203.0.113.9'), 'inside metadata_policy.block_cidrs');
    assert.equal(metadata.refuseNamedUpstream('127.0.0.1'), undefined, 'a named upstream may be a mirror on this machine');
    assert.equal(metadata.refuseNamedUpstream('203.0.113.9'), 'inside metadata_policy.block_cidrs');
    const problems = OutboundAddressPolicy.check({ loopback: 'block', lan: 'block', allow_cidrs: ['lan'], block_cidrs: [] }, 'metadata_policy');
    assert.deepEqual(problems.map((p) => p.path), ['metadata_policy.allow_cidrs[0]']);
  });

  it('leaves names alone (they are judged by the addresses they resolve to)', () => {
    assert.equal(policy({ loopback: 'block' }).refuse('localhost'), undefined);
  });
});
