import assert from 'node:assert/strict';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { api } from '../../helpers/api-client.js';
import { startMetadataApp } from '../metadata/metadata-test-app.js';

interface Problem {
  type: string;
  status: number;
  detail?: string;
  errors?: { path: string; message: string }[];
}

async function getCover(baseUrl: string, path: string): Promise<{ status: number; type: string | null; cacheControl: string | null; bytes: Buffer }> {
  const res = await fetch(baseUrl + path);
  return { status: res.status, type: res.headers.get('content-type'), cacheControl: res.headers.get('cache-control'), bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('GET /api/v1/covers/:mbid', () => {
  it('serves the 250 px front cover by default through the archive redirects, then from disk without asking the archive again', async (t) => {
    const { app, coverArt, catalogue } = await startMetadataApp(t);
    const mbid = catalogue.releaseGroups.map((group) => group.id).find((id) => coverArt.imageOf(id, '250')) ?? '';
    const first = await getCover(app.baseUrl, `/api/v1/covers/${mbid}`);
    assert.equal(first.status, 200);
    assert.equal(first.type, 'image/jpeg');
    assert.deepEqual(first.bytes, coverArt.imageOf(mbid, '250'));
    assert.match(first.cacheControl ?? '', /^private, max-age=31536000, immutable$/);
    // coverartarchive.org 307 → archive.org 302 → the storage node's bytes.
    assert.deepEqual(coverArt.answered.map((request) => request.status), [307, 302, 200]);
    const asked = coverArt.answered.length;
    const again = await getCover(app.baseUrl, `/api/v1/covers/${mbid.toUpperCase()}?size=250`);
    assert.equal(again.status, 200);
    assert.deepEqual(again.bytes, first.bytes);
    assert.equal(coverArt.answered.length, asked, 'a stored cover is served without a request to the archive');
    const large = await getCover(app.baseUrl, `/api/v1/covers/${mbid}?size=500`);
    assert.equal(large.status, 200);
    assert.deepEqual(large.bytes, coverArt.imageOf(mbid, '500'));
    assert.equal(coverArt.requestsTo(`/release-group/${mbid}/front-500`), 1);
  });

  it('answers 304 with no body when If-None-Match names the cover\'s ETag', async (t) => {
    const { app, album } = await startMetadataApp(t);
    const first = await fetch(`${app.baseUrl}/api/v1/covers/${album.id}`);
    assert.equal(first.status, 200);
    await first.arrayBuffer();
    const etag = first.headers.get('etag');
    assert.match(etag ?? '', /^"[A-Za-z0-9_-]{22}"$/);
    const again = await fetch(`${app.baseUrl}/api/v1/covers/${album.id}`, { headers: { 'if-none-match': `"other", W/${etag ?? ''}` } });
    assert.equal(again.status, 304);
    assert.equal(again.headers.get('etag'), etag);
    assert.equal((await again.arrayBuffer()).byteLength, 0);
    const otherSize = await fetch(`${app.baseUrl}/api/v1/covers/${album.id}?size=500`, { headers: { 'if-none-match': etag ?? '' } });
    assert.equal(otherSize.status, 200, 'another size is another image');
    await otherSize.arrayBuffer();
  });

  it('answers 404 problem+json for a release group without a front cover, and remembers it', async (t) => {
    const { app, coverArt, catalogue } = await startMetadataApp(t);
    const mbid = catalogue.releaseGroups.map((group) => group.id).find((id) => !coverArt.imageOf(id, '250')) ?? '';
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${app.baseUrl}/api/v1/covers/${mbid}`);
      assert.equal(res.status, 404);
      assert.equal(res.headers.get('content-type'), 'application/problem+json');
      const problem = (await res.json()) as Problem;
      assert.equal(problem.type, 'urn:crateflow:problem:not-found');
      assert.match(problem.detail ?? '', new RegExp(mbid));
    }
    assert.equal(coverArt.requestsTo(`/release-group/${mbid}`), 1, 'the miss is remembered');
  });

  it('answers a missing cover with a transparent pixel and X-Cover-Missing when asked with missing=empty, and a real cover as usual', async (t) => {
    const { app, coverArt, catalogue, album } = await startMetadataApp(t);
    const mbid = catalogue.releaseGroups.map((group) => group.id).find((id) => !coverArt.imageOf(id, '250')) ?? '';
    const res = await fetch(`${app.baseUrl}/api/v1/covers/${mbid}?size=250&missing=empty`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/gif');
    assert.equal(res.headers.get('x-cover-missing'), 'true');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('cache-control'), 'private, max-age=259200', 'no longer than the miss is remembered');
    const gif = Buffer.from(await res.arrayBuffer());
    assert.deepEqual([gif.subarray(0, 6).toString('latin1'), gif.readUInt16LE(6), gif.readUInt16LE(8)], ['GIF89a', 1, 1]);
    const real = await fetch(`${app.baseUrl}/api/v1/covers/${album.id}?size=250&missing=empty`);
    assert.equal(real.status, 200);
    assert.equal(real.headers.get('x-cover-missing'), null);
    assert.deepEqual(Buffer.from(await real.arrayBuffer()), coverArt.imageOf(album.id, '250'));
    const bad = await api<Problem>(app.baseUrl, 'GET', `/api/v1/covers/${mbid}?missing=blank`);
    assert.deepEqual(bad.body.errors?.map((e) => e.path), ['query.missing']);
  });

  it('answers 400 naming mbid for an id that is not an MBID and size for a size other than 250 or 500', async (t) => {
    const { app, coverArt, album } = await startMetadataApp(t);
    const badId = await api<Problem>(app.baseUrl, 'GET', '/api/v1/covers/not-an-mbid');
    assert.equal(badId.status, 400);
    assert.deepEqual(badId.body.errors?.map((e) => e.path), ['params.mbid']);
    const badSize = await api<Problem>(app.baseUrl, 'GET', `/api/v1/covers/${album.id}?size=1200`);
    assert.equal(badSize.status, 400);
    assert.deepEqual(badSize.body.errors?.map((e) => e.path), ['query.size']);
    const unknownParameter = await api<Problem>(app.baseUrl, 'GET', `/api/v1/covers/${album.id}?width=250`);
    assert.equal(unknownParameter.status, 400);
    assert.equal(coverArt.answered.length, 0, 'nothing was asked of the archive');
  });

  it('answers 503 problem+json with Retry-After when the archive fails, and fetches the cover once it answers again', async (t) => {
    const { app, coverArt, album } = await startMetadataApp(t);
    coverArt.failNext(1);
    const res = await fetch(`${app.baseUrl}/api/v1/covers/${album.id}`);
    assert.equal(res.status, 503);
    assert.ok(Number(res.headers.get('retry-after')) > 0);
    const text = await res.text();
    const problem = JSON.parse(text) as Problem;
    assert.equal(problem.type, 'urn:crateflow:problem:upstream-unavailable');
    assert.doesNotMatch(text, /\bat .*\.ts:\d+|Error:/, 'no stack or raw error in the answer');
    const later = await getCover(app.baseUrl, `/api/v1/covers/${album.id}`);
    assert.equal(later.status, 200);
  });

  it('answers 503 when the archive cannot be reached at all', async (t) => {
    const { app, album } = await startMetadataApp(t, { metadata: { coverartarchive: { url: 'http://127.0.0.1:9' } } });
    const res = await api<Problem>(app.baseUrl, 'GET', `/api/v1/covers/${album.id}`);
    assert.equal(res.status, 503);
    assert.equal(res.body.type, 'urn:crateflow:problem:upstream-unavailable');
  });

  it('serves covers without metadata.contact, asking the Cover Art Archive and not MusicBrainz', async (t) => {
    const { app, coverArt, album, musicbrainz } = await startMetadataApp(t, { withoutContact: true });
    const res = await getCover(app.baseUrl, `/api/v1/covers/${album.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.bytes, coverArt.imageOf(album.id, '250'));
    assert.equal(musicbrainz.answered.length, 0);
  });

  it('keeps the covers folder under metadata.coverartarchive.cache_max_mb, dropping the least recently served first', async (t) => {
    const { app, coverArt, catalogue } = await startMetadataApp(t, { metadata: { coverartarchive: { cache_max_mb: 1 } } });
    const withArt = catalogue.releaseGroups.map((group) => group.id).filter((id) => coverArt.imageOf(id, '500'));
    const [kept, evicted] = withArt;
    assert.ok(kept && evicted && withArt.length * 2 > 256, 'enough covers to pass 1 MiB at 4 KiB a file');
    for (const mbid of withArt) {
      for (const size of [250, 500]) {
        assert.equal((await getCover(app.baseUrl, `/api/v1/covers/${mbid}?size=${size}`)).status, 200);
        // The first cover is served again and again, so it stays the most recently used.
        assert.equal((await getCover(app.baseUrl, `/api/v1/covers/${kept}?size=250`)).status, 200);
      }
    }
    const dir = join(app.dataDir, 'cache', 'covers');
    const names = await readdir(dir);
    let counted = 0;
    for (const name of names) counted += Math.max(4096, Math.ceil((await stat(join(dir, name))).size / 4096) * 4096);
    assert.ok(counted <= 1024 * 1024, `${counted} bytes counted in ${names.length} files`);
    assert.ok(names.includes(`${kept}-250.jpg`), 'the most recently served cover is kept');
    assert.ok(!names.includes(`${evicted}-250.jpg`), 'an early cover not served since is gone');
    const before = coverArt.requestsTo(`/release-group/${evicted}/front-250`);
    assert.equal((await getCover(app.baseUrl, `/api/v1/covers/${evicted}?size=250`)).status, 200);
    assert.equal(coverArt.requestsTo(`/release-group/${evicted}/front-250`), before + 1, 'an evicted cover is fetched again');
  });
});
