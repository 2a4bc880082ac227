import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startBaitServer } from '../../helpers/bait-server.js';
import { startMetadataApp } from '../metadata/metadata-test-app.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a0c1d0d50000000049454e44ae426082', 'hex');
const HTML = '<!doctype html><title>router admin</title><script>fetch("/api/v1/queue")</script>';

async function getCover(baseUrl: string, mbid: string) {
  const res = await fetch(`${baseUrl}/api/v1/covers/${mbid}`);
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, type: res.headers.get('content-type'), nosniff: res.headers.get('x-content-type-options'), bytes };
}

async function storedCovers(dataDir: string): Promise<string[]> {
  return readdir(join(dataDir, 'cache', 'covers')).catch((err: unknown) => {
    if (err instanceof Error && 'code' in err && err.code === 'ENOENT') return [];
    throw err;
  });
}

describe('GET /api/v1/covers/:mbid and metadata_policy', () => {
  it('refuses a redirect to 127.0.0.1 on another port than the archive: 503, and the target is never contacted', async (t) => {
    const { app, coverArt, album } = await startMetadataApp(t);
    const bait = await startBaitServer({ host: '127.0.0.1', body: PNG, contentType: 'image/png' });
    t.after(() => bait.close());
    coverArt.redirectFrontsTo(`${bait.origin}/secret.png`);
    const cover = await getCover(app.baseUrl, album.id);
    assert.equal(cover.status, 503);
    assert.equal(cover.type, 'application/problem+json');
    assert.equal(cover.nosniff, 'nosniff');
    assert.equal(bait.hits, 0, 'no connection to the address the archive redirected to');
    assert.deepEqual(await storedCovers(app.dataDir), []);
  });

  it('refuses a redirect to [::1]: 503, and the target is never contacted', async (t) => {
    const { app, coverArt, album } = await startMetadataApp(t);
    const bait = await startBaitServer({ host: '::1', body: PNG, contentType: 'image/png' });
    t.after(() => bait.close());
    coverArt.redirectFrontsTo(`${bait.origin}/secret.png`);
    assert.equal((await getCover(app.baseUrl, album.id)).status, 503);
    assert.equal(bait.hits, 0);
  });

  it('refuses redirects to the cloud metadata address and to a LAN address with 503, before connecting', async (t) => {
    const { app, coverArt, album } = await startMetadataApp(t);
    // Refused before a socket is opened (the reasons are asserted in test/core/metadata/cover-art-store-address-policy.test.ts);
    // nothing is sent to these addresses.
    for (const location of ['http://169.254.169.254/latest/meta-data/iam/security-credentials/', 'http://10.255.255.1/cover.jpg', 'http://[fd00:ec2::254]/latest/']) {
      coverArt.redirectFrontsTo(location);
      const cover = await getCover(app.baseUrl, album.id);
      assert.equal(cover.status, 503, location);
      assert.equal(cover.nosniff, 'nosniff', location);
    }
  });

  it('answers 503 problem+json, not 500, when the archive redirects to a file: URL', async (t) => {
    const { app, coverArt, album } = await startMetadataApp(t);
    coverArt.redirectFrontsTo('file:///etc/passwd');
    const cover = await getCover(app.baseUrl, album.id);
    assert.equal(cover.status, 503);
    assert.equal(cover.type, 'application/problem+json');
    assert.doesNotMatch(cover.bytes.toString('utf8'), /root:/);
  });

  it('follows a redirect to another loopback port when metadata_policy.loopback is allow, but never serves a page as a cover', async (t) => {
    const { app, coverArt, album } = await startMetadataApp(t, { config: { metadata_policy: { loopback: 'allow' } } });
    const bait = await startBaitServer({ host: '127.0.0.1', body: HTML, contentType: 'image/jpeg' });
    t.after(() => bait.close());
    coverArt.redirectFrontsTo(`${bait.origin}/cover.jpg`);
    const cover = await getCover(app.baseUrl, album.id);
    assert.equal(bait.hits, 1, 'the operator allowed loopback, so the hop is made');
    assert.equal(cover.status, 503, 'HTML labelled image/jpeg is not an image');
    assert.equal(cover.nosniff, 'nosniff');
    assert.doesNotMatch(cover.bytes.toString('utf8'), /<script>/);
    assert.deepEqual(await storedCovers(app.dataDir), [], 'nothing is kept');
  });

  it('serves a cover with the Content-Type its bytes say and X-Content-Type-Options: nosniff, whatever the upstream claimed', async (t) => {
    const { app, coverArt, album } = await startMetadataApp(t, { config: { metadata_policy: { allow_cidrs: ['127.0.0.1/32'] } } });
    const bait = await startBaitServer({ host: '127.0.0.1', body: PNG, contentType: 'text/html; charset=utf-8' });
    t.after(() => bait.close());
    coverArt.redirectFrontsTo(`${bait.origin}/cover`);
    const first = await getCover(app.baseUrl, album.id);
    assert.equal(first.status, 200);
    assert.equal(first.type, 'image/png');
    assert.equal(first.nosniff, 'nosniff');
    assert.deepEqual(first.bytes, PNG);
    const again = await getCover(app.baseUrl, album.id);
    assert.equal(again.type, 'image/png', 'and so when served from disk');
    assert.equal(again.nosniff, 'nosniff');
  });

  it('keeps the real three-hop chain working, every answer with nosniff', async (t) => {
    const { app, coverArt, album } = await startMetadataApp(t);
    const cover = await getCover(app.baseUrl, album.id);
    assert.equal(cover.status, 200);
    assert.equal(cover.type, 'image/jpeg');
    assert.equal(cover.nosniff, 'nosniff');
    assert.deepEqual(cover.bytes, coverArt.imageOf(album.id, '250'));
    assert.deepEqual(coverArt.answered.map((request) => request.status), [307, 302, 200]);
    const missing = await getCover(app.baseUrl, '00000000-0000-4000-8000-000000000000');
    assert.equal(missing.status, 404);
    assert.equal(missing.nosniff, 'nosniff');
  });
});
