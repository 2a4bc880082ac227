import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProxyTrust } from '../../../core/auth/proxy-trust.js';
import { CidrList } from '../../../core/net/cidr.js';

const trust = new ProxyTrust(CidrList.parse(['127.0.0.1/32', '::1/128', '10.0.0.0/8']).list);

describe('ProxyTrust', () => {
  it('trusts a peer by its TCP address only, IPv4-mapped IPv6 included', () => {
    assert.equal(trust.isTrusted('127.0.0.1'), true);
    assert.equal(trust.isTrusted('::ffff:127.0.0.1'), true);
    assert.equal(trust.isTrusted('::1'), true);
    assert.equal(trust.isTrusted('::ffff:127.0.0.2'), false);
    assert.equal(trust.isTrusted('192.0.2.1'), false);
  });

  const clients: [peer: string, forwardedFor: string | undefined, client: string, why: string][] = [
    ['192.0.2.7', undefined, '192.0.2.7', 'an untrusted peer is the client'],
    ['192.0.2.7', '203.0.113.1', '192.0.2.7', 'an untrusted peer cannot name another client'],
    ['::ffff:192.0.2.7', undefined, '192.0.2.7', 'an IPv4-mapped peer is written as IPv4'],
    ['127.0.0.1', undefined, '127.0.0.1', 'a trusted peer without X-Forwarded-For is the client'],
    ['127.0.0.1', '203.0.113.1', '203.0.113.1', 'behind a trusted proxy the forwarded hop is the client'],
    ['127.0.0.1', '198.51.100.9, 203.0.113.1', '203.0.113.1', 'the right-most untrusted hop wins over what the client wrote'],
    ['127.0.0.1', '198.51.100.9, 203.0.113.1, 10.1.1.1', '203.0.113.1', 'trusted hops on the right are skipped'],
    ['::ffff:127.0.0.1', '10.2.2.2, 10.1.1.1', '10.2.2.2', 'when every hop is trusted the left-most is the client'],
    ['127.0.0.1', 'garbage, 203.0.113.1', '203.0.113.1', 'a malformed hop left of the client does not matter'],
    ['127.0.0.1', '203.0.113.1, garbage', '127.0.0.1', 'a malformed hop stops the walk at the hop that wrote it'],
    ['::1', '2001:db8::5', '2001:db8::5', 'IPv6 hops work'],
  ];
  for (const [peer, forwardedFor, client, why] of clients) {
    it(`resolves the client address: ${why}`, () => {
      assert.equal(trust.clientAddress(peer, forwardedFor), client);
    });
  }

  it('treats the request as https over TLS, or when a trusted proxy says X-Forwarded-Proto: https', () => {
    assert.equal(trust.isSecure('192.0.2.7', true, undefined), true);
    assert.equal(trust.isSecure('127.0.0.1', false, 'https'), true);
    assert.equal(trust.isSecure('127.0.0.1', false, 'HTTPS, http'), true);
    assert.equal(trust.isSecure('127.0.0.1', false, 'http'), false);
    assert.equal(trust.isSecure('192.0.2.7', false, 'https'), false);
    assert.equal(trust.isSecure('127.0.0.1', false, undefined), false);
  });
});
