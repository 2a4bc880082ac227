import { HttpRequestError, RetryLaterError } from '@crateflow/sdk';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { createLogger } from '../../../core/logging/create-logger.js';
import { CoverArtStore } from '../../../core/metadata/cover-art-store.js';
import { DEFAULT_METADATA_POLICY, type MetadataPolicy } from '../../../core/net/metadata-policy.schema.js';
import { OutboundAddressPolicy } from '../../../core/net/outbound-address-policy.js';
import { createUpstreamHttpClient } from '../../../core/net/upstream-http-client.js';
import { startFakeCoverArtArchive, type FakeCoverArtArchive } from '../../fakes/fake-cover-art-archive.js';
import { startBaitServer } from '../../helpers/bait-server.js';
import { ManualClock } from '../../helpers/manual-clock.js';

async function setUp(t: TestContext, policy: MetadataPolicy = DEFAULT_METADATA_POLICY): Promise<{ fake: FakeCoverArtArchive; store: CoverArtStore; mbid: string; dataDir: string }> {
  const fake = await startFakeCoverArtArchive();
  const dataDir = await mkdtemp(join(tmpdir(), 'crateflow-cover-policy-'));
  const http = createUpstreamHttpClient({
    userAgent: 'Crateflow/test', defaultTimeoutMs: 5000, policy: OutboundAddressPolicy.from(policy, 'metadata_policy'), upstreams: [fake.url],
  });
  t.after(() => Promise.all([fake.close(), http.close(), rm(dataDir, { recursive: true, force: true })]));
  const store = new CoverArtStore({ dataDir, http, clock: new ManualClock(), log: createLogger('silent'), userAgent: 'Crateflow/test', baseUrl: fake.url });
  const mbid = fake.catalogue.releaseGroups.map((group) => group.id).find((id) => fake.imageOf(id, '250')) ?? '';
  return { fake, store, mbid, dataDir };
}

const refused = (reason: RegExp) => (err: unknown): boolean =>
  err instanceof HttpRequestError && err.reason === 'refused-address' && reason.test(err.message);

describe('CoverArtStore with the metadata address policy', () => {
  it('refuses each redirect into loopback, link-local, cloud metadata or the LAN before connecting, naming why', async (t) => {
    const { fake, store, mbid, dataDir } = await setUp(t);
    const cases: [string, RegExp][] = [
      ['http://127.0.0.1:9/cover.jpg', /127\.0\.0\.1: loopback address \(metadata_policy\.loopback: block\)/],
      ['http://[::1]:9/cover.jpg', /::1: loopback address/],
      ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254: link-local address/],
      ['http://[fd00:ec2::254]/latest/meta-data/', /cloud metadata address/],
      ['http://[::ffff:169.254.169.254]/latest/meta-data/', /link-local address/],
      ['http://10.255.255.1/cover.jpg', /10\.255\.255\.1: LAN address \(metadata_policy\.lan: block\)/],
      ['http://192.168.1.1/cover.jpg', /LAN address/],
    ];
    for (const [location, reason] of cases) {
      fake.redirectFrontsTo(location);
      await assert.rejects(store.get(mbid, 250), refused(reason), location);
    }
    const stored = await readdir(join(dataDir, 'cache', 'covers')).catch((err: unknown) => {
      if (err instanceof Error && 'code' in err && err.code === 'ENOENT') return [];
      throw err;
    });
    assert.deepEqual(stored, [], 'nothing stored, no missing-cover marker either');
  });

  it('refuses a name that resolves to loopback (localhost) on another port: DNS answers are judged too', async (t) => {
    const { fake, store, mbid } = await setUp(t);
    const bait = await startBaitServer({ host: '127.0.0.1', body: 'x', contentType: 'image/jpeg' });
    t.after(() => bait.close());
    fake.redirectFrontsTo(bait.origin.replace('127.0.0.1', 'localhost'));
    await assert.rejects(store.get(mbid, 250), refused(/localhost \((127\.0\.0\.1|::1)\): loopback address/));
    assert.equal(bait.hits, 0);
  });

  it('keeps link-local refused even when metadata_policy allows loopback, LAN and every CIDR', async (t) => {
    const { fake, store, mbid } = await setUp(t, { loopback: 'allow', lan: 'allow', allow_cidrs: ['0.0.0.0/0', '::/0'], block_cidrs: [] });
    fake.redirectFrontsTo('http://169.254.169.254/latest/meta-data/');
    await assert.rejects(store.get(mbid, 250), refused(/link-local/));
  });

  it('treats an archive page that is not an image as "try later", not as a cover and not as "no cover"', async (t) => {
    const { fake, store, mbid } = await setUp(t, { ...DEFAULT_METADATA_POLICY, loopback: 'allow' });
    const bait = await startBaitServer({ host: '127.0.0.1', body: '<html><body>Service unavailable</body></html>', contentType: 'image/jpeg' });
    t.after(() => bait.close());
    fake.redirectFrontsTo(`${bait.origin}/x.jpg`);
    await assert.rejects(store.get(mbid, 250), (err: unknown) => err instanceof RetryLaterError && /not an image/.test(err.message));
    fake.redirectFrontsTo(undefined);
    const stored = await store.get(mbid, 250);
    assert.notEqual(stored, 'none', 'the page was not remembered as a missing cover');
  });

  it('answers a redirect loop and a Location that is no URL with RetryLaterError, and a file: Location as refused', async (t) => {
    const { fake, store, mbid } = await setUp(t);
    fake.redirectFrontsTo(`${fake.url}/release-group/${mbid}/front-250`);
    await assert.rejects(store.get(mbid, 250), (err: unknown) => err instanceof RetryLaterError && /more than 5 redirects/.test(err.message));
    fake.redirectFrontsTo('http://[broken');
    await assert.rejects(store.get(mbid, 250), (err: unknown) => err instanceof RetryLaterError && /not a URL/.test(err.message));
    fake.redirectFrontsTo('file:///etc/passwd');
    await assert.rejects(store.get(mbid, 250), refused(/file: URL/));
  });
});
