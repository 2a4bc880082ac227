import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { refuseAddress } from '../../../plugins/sink-webhooks/address-policy.js';

describe('refuseAddress', () => {
  it('refuses IPv4 link-local addresses, the cloud metadata range', () => {
    for (const address of ['169.254.169.254', '169.254.0.1', '169.254.255.255']) assert.ok(refuseAddress(address), address);
  });

  it('refuses IPv6 link-local addresses, with or without a zone and brackets', () => {
    for (const address of ['fe80::1', 'fe80::1%eth0', '[fe80::abcd]', 'febf:ffff::1', 'FE80::1']) assert.ok(refuseAddress(address), address);
  });

  it('refuses link-local IPv4 written inside IPv6 (mapped, compatible, NAT64, hex or dotted)', () => {
    for (const address of ['::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '0:0:0:0:0:ffff:a9fe:a9fe', '::169.254.169.254', '64:ff9b::a9fe:a9fe']) {
      assert.ok(refuseAddress(address), address);
    }
  });

  it('refuses the single metadata endpoints outside link-local ranges (AWS IPv6, Alibaba)', () => {
    assert.ok(refuseAddress('fd00:ec2::254'));
    assert.ok(refuseAddress('100.100.100.200'));
  });

  it('refuses Azure WireServer (168.63.129.16) in every spelling', () => {
    for (const address of ['168.63.129.16', '::ffff:168.63.129.16', '::ffff:0:168.63.129.16', '64:ff9b::a83f:8110', '2002:a83f:8110::1']) {
      assert.match(refuseAddress(address) ?? '', /metadata/, address);
    }
  });

  it('refuses metadata addresses carried by local-use NAT64 (64:ff9b:1::/48) in each RFC 6052 layout', () => {
    for (const address of ['64:ff9b:1::169.254.169.254', '64:ff9b:1::a9fe:a9fe', '64:ff9b:1:a9fe:a9:fe00::', '64:ff9b:1:a9:fe:a9fe::', '64:ff9b:1:0:a9:fea9:fe00:0']) {
      assert.match(refuseAddress(address) ?? '', /local-use NAT64/, address);
    }
  });

  it('refuses metadata addresses carried by 6to4 (2002::/16) and SIIT (::ffff:0:a.b.c.d)', () => {
    assert.match(refuseAddress('2002:a9fe:a9fe::1') ?? '', /6to4/);
    assert.match(refuseAddress('2002:6464:64c8:1::') ?? '', /6to4/, 'Alibaba metadata 100.100.100.200 behind 6to4');
    assert.match(refuseAddress('::ffff:0:169.254.169.254') ?? '', /SIIT/);
    assert.match(refuseAddress('::ffff:0:a9fe:a9fe') ?? '', /SIIT/);
  });

  it('allows LAN addresses carried by 6to4 and NAT64', () => {
    for (const address of ['2002:c0a8:114::1', '64:ff9b:1::c0a8:114', '64:ff9b::10.0.0.5', '::ffff:0:192.168.1.20']) {
      assert.equal(refuseAddress(address), undefined, address);
    }
  });

  it('allows loopback, LAN, carrier-grade NAT and public addresses', () => {
    for (const address of ['127.0.0.1', '::1', '10.0.0.5', '192.168.1.20', '172.16.0.1', '100.64.0.1', 'fd00::1', '::ffff:192.168.1.20', '93.184.216.34', 'fec0::1']) {
      assert.equal(refuseAddress(address), undefined, address);
    }
  });

  it('leaves names alone (they are judged by the addresses they resolve to)', () => {
    assert.equal(refuseAddress('metadata.google.internal'), undefined);
  });
});
