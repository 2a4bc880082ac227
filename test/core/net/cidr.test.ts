import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CidrList, parseCidr, parseIp } from '../../../core/net/cidr.js';

describe('CidrList', () => {
  const cases: [cidrs: string[], address: string, inside: boolean][] = [
    [['127.0.0.1/32'], '127.0.0.1', true],
    [['127.0.0.1/32'], '127.0.0.2', false],
    [['127.0.0.1/32'], '::ffff:127.0.0.1', true],
    [['127.0.0.1/32'], '::FFFF:127.0.0.1', true],
    [['127.0.0.1/32'], '::ffff:7f00:1', true],
    [['127.0.0.1/32'], '::1', false],
    [['::1/128'], '::1', true],
    [['::1/128'], '0:0:0:0:0:0:0:1', true],
    [['::1/128'], '127.0.0.1', false],
    [['10.0.0.0/8'], '10.255.3.4', true],
    [['10.0.0.0/8'], '11.0.0.1', false],
    [['192.168.1.0/24'], '::ffff:192.168.1.77', true],
    [['::ffff:10.0.0.0/104'], '10.1.2.3', true],
    [['::ffff:10.0.0.0/104'], '11.1.2.3', false],
    [['fd00::/8'], 'fd12:3456::1', true],
    [['fd00::/8'], 'fe80::1', false],
    [['fe80::/10'], 'fe80::1%eth0', true],
    [['2001:db8::/32'], '2001:db8:ffff::1', true],
    [['2001:db8::/32'], '2001:db9::1', false],
    [['0.0.0.0/0'], '203.0.113.9', true],
    [['0.0.0.0/0'], '2001:db8::1', false],
    [['::/0'], '2001:db8::1', true],
    [['10.0.0.1'], '10.0.0.1', true],
    [['127.0.0.1/32', '::1/128'], 'not-an-address', false],
    [['127.0.0.1/32', '::1/128'], '', false],
  ];
  for (const [cidrs, address, inside] of cases) {
    it(`${inside ? 'contains' : 'does not contain'} ${address || '(empty)'} for ${cidrs.join(', ')}`, () => {
      const { list, invalid } = CidrList.parse(cidrs);
      assert.deepEqual(invalid, []);
      assert.equal(list.contains(address), inside);
    });
  }

  it('reports every entry that is not a CIDR, by index', () => {
    const { invalid } = CidrList.parse(['10.0.0.0/8', '10.0.0.0/33', 'localhost', '::1/129', '1.2.3.4/8/1', '::ffff:1.2.3.4/64', '10.0.0.0/x']);
    assert.deepEqual(invalid.map((i) => i.index), [1, 2, 3, 4, 5, 6]);
  });

  it('clears host bits of a network written with them set', () => {
    assert.deepEqual(parseCidr('10.1.2.3/8'), { family: 4, network: 10n << 24n, prefix: 8 });
  });

  it('reads IPv4-mapped IPv6 as the IPv4 address it carries', () => {
    assert.deepEqual(parseIp('::ffff:127.0.0.1'), parseIp('127.0.0.1'));
    assert.equal(parseIp('::ffff:127.0.0.1')?.family, 4);
    assert.equal(parseIp('::1')?.family, 6);
  });
});
