import { HttpRequestError } from '@crateflow/sdk';
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { DEFAULT_METADATA_POLICY, type MetadataPolicy } from '../../../core/net/metadata-policy.schema.js';
import { OutboundAddressPolicy } from '../../../core/net/outbound-address-policy.js';
import { configuredUrls, createUpstreamHttpClient } from '../../../core/net/upstream-http-client.js';
import { startBaitServer, type BaitServer } from '../../helpers/bait-server.js';

async function baits(t: TestContext): Promise<{ upstream: BaitServer; other: BaitServer }> {
  const upstream = await startBaitServer({ host: '127.0.0.1', body: '{}', contentType: 'application/json' });
  const other = await startBaitServer({ host: '127.0.0.1', body: 'private', contentType: 'text/plain' });
  t.after(() => Promise.all([upstream.close(), other.close()]));
  return { upstream, other };
}

function client(t: TestContext, upstreams: string[], policy: Partial<MetadataPolicy> = {}) {
  const http = createUpstreamHttpClient({
    userAgent: 'Crateflow/test', defaultTimeoutMs: 5000, upstreams,
    policy: OutboundAddressPolicy.from({ ...DEFAULT_METADATA_POLICY, ...policy }, 'metadata_policy'),
  });
  t.after(() => http.close());
  return http;
}

const refused = (reason: RegExp) => (err: unknown): boolean =>
  err instanceof HttpRequestError && err.reason === 'refused-address' && reason.test(err.message);

describe('createUpstreamHttpClient', () => {
  it('reaches a configured upstream on loopback at its own origin, and refuses the same address on another port', async (t) => {
    const { upstream, other } = await baits(t);
    const http = client(t, [`${upstream.origin}/ws/2`]);
    assert.equal((await http.request({ url: `${upstream.origin}/anything` })).status, 200);
    await assert.rejects(http.request({ url: other.origin }), refused(/loopback address \(metadata_policy\.loopback: block\)/));
    assert.equal(other.hits, 0);
  });

  it('opens loopback with metadata_policy.loopback: allow, or one host with allow_cidrs; block_cidrs win, even over a named upstream', async (t) => {
    const { upstream, other } = await baits(t);
    assert.equal((await client(t, [upstream.origin], { loopback: 'allow' }).request({ url: other.origin })).status, 200);
    assert.equal((await client(t, [upstream.origin], { allow_cidrs: ['127.0.0.1/32'] }).request({ url: other.origin })).status, 200);
    const blocked = client(t, [upstream.origin], { loopback: 'allow', block_cidrs: ['127.0.0.0/8'] });
    await assert.rejects(blocked.request({ url: upstream.origin }), refused(/inside metadata_policy\.block_cidrs/));
    assert.equal(other.hits, 2);
  });

  it('refuses link-local and cloud metadata addresses even when they are the configured upstream', async (t) => {
    const http = client(t, ['http://169.254.169.254', 'http://[fd00:ec2::254]'], { loopback: 'allow', lan: 'allow' });
    await assert.rejects(http.request({ url: 'http://169.254.169.254/latest/meta-data/' }), refused(/link-local/));
    await assert.rejects(http.request({ url: 'http://[fd00:ec2::254]/latest/meta-data/' }), refused(/cloud metadata/));
  });

  it('refuses URLs that are not http or https', async (t) => {
    const http = client(t, []);
    await assert.rejects(http.request({ url: 'file:///etc/passwd' }), refused(/file: URL/));
  });
});

describe('configuredUrls', () => {
  it('finds every http(s) URL in a plugin config at any depth, and skips patterns and other strings', () => {
    const config = {
      user: 'rob', listenbrainz_url: 'https://api.listenbrainz.org', nested: { lastfm_url: 'http://127.0.0.1:4000/2.0/' },
      preview_origins: ['https://*.dzcdn.net'], not_a_url: 'http://[broken', other: 'ftp://example.org', limit: 5,
    };
    assert.deepEqual(configuredUrls(config), ['https://api.listenbrainz.org', 'http://127.0.0.1:4000/2.0/']);
  });
});
