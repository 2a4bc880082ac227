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

  it('allows loopback, LAN, carrier-grade NAT and public addresses', () => {
    for (const address of ['127.0.0.1', '::1', '10.0.0.5', '192.168.1.20', '172.16.0.1', '100.64.0.1', 'fd00::1', '::ffff:192.168.1.20', '93.184.216.34', 'fec0::1']) {
      assert.equal(refuseAddress(address), undefined, address);
    }
  });

  it('leaves names alone (they are judged by the addresses they resolve to)', () => {
    assert.equal(refuseAddress('metadata.google.internal'), undefined);
  });
});
