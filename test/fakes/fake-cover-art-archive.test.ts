import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { rawRequest } from '../helpers/raw-request.js';
import { startFakeCoverArtArchive, type FakeCoverArtArchive } from './fake-cover-art-archive.js';
import { fakeMbid } from './musicbrainz-catalogue.js';

async function start(t: TestContext): Promise<FakeCoverArtArchive> {
  const fake = await startFakeCoverArtArchive();
  t.after(() => fake.close());
  return fake;
}

/** A release group with art whose original is large enough for a 1200 thumbnail, one with a small original, one without art. */
function groups(fake: FakeCoverArtArchive) {
  const withArt = fake.catalogue.releaseGroups.filter((group) => fake.imageOf(group.id, '250'));
  return {
    large: withArt.find((group) => fake.imageOf(group.id, '1200'))?.id ?? '',
    small: withArt.find((group) => !fake.imageOf(group.id, '1200'))?.id ?? '',
    bare: fake.catalogue.releaseGroups.find((group) => !fake.imageOf(group.id, '250'))?.id ?? '',
  };
}

describe('fake Cover Art Archive', () => {
  it('answers front-250 with a 307 and a "See:" body, archive.org with a 302, and the storage node with JPEG bytes', async (t) => {
    const fake = await start(t);
    const { large } = groups(fake);
    const first = await rawRequest(`${fake.url}/release-group/${large}/front-250`);
    assert.equal(first.status, 307);
    const location = String(first.headers.location);
    assert.match(location, /\/download\/mbid-[0-9a-f-]{36}\/mbid-[0-9a-f-]{36}-\d{11}_thumb250\.jpg$/);
    assert.equal(first.text, `See: ${location}\n`);
    assert.equal(first.headers['access-control-allow-origin'], '*');
    const second = await rawRequest(location);
    assert.equal(second.status, 302);
    const image = await fetch(String(second.headers.location));
    assert.equal(image.headers.get('content-type'), 'image/jpeg');
    const bytes = Buffer.from(await image.arrayBuffer());
    assert.deepEqual(bytes, fake.imageOf(large, '250'));
    assert.deepEqual([...bytes.subarray(0, 2)], [0xff, 0xd8], 'a JPEG starts with SOI');
    const followed = await fetch(`${fake.url}/release-group/${large}/front-500.jpg`);
    assert.deepEqual(Buffer.from(await followed.arrayBuffer()), fake.imageOf(large, '500'), 'fetch follows all three hops');
  });

  it('answers 404 as a Werkzeug HTML page when no release of the group has a front image', async (t) => {
    const fake = await start(t);
    const { bare } = groups(fake);
    const res = await fetch(`${fake.url}/release-group/${bare}/front-250`);
    assert.equal(res.status, 404);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await res.text(), new RegExp(`<p>No cover art found for release group ${bare}</p>`));
    assert.equal((await fetch(`${fake.url}/release-group/${fakeMbid(5, 'unknown')}/front`)).status, 404);
  });

  it('refuses upper-case MBIDs and back covers of release groups with 400', async (t) => {
    const fake = await start(t);
    const { large } = groups(fake);
    const upper = await fetch(`${fake.url}/release-group/${large.toUpperCase()}/front-250`);
    assert.deepEqual([upper.status, (await upper.text()).includes('invalid MBID specified')], [400, true]);
    const back = await fetch(`${fake.url}/release-group/${large}/back`);
    assert.deepEqual([back.status, await back.text()], [400, 'back not supported for release groups.']);
  });

  it('redirects an unknown size to the original, and loses the 1200 thumbnail of a small original on the storage node', async (t) => {
    const fake = await start(t);
    const { small } = groups(fake);
    const odd = await rawRequest(`${fake.url}/release-group/${small}/front-999`);
    assert.match(String(odd.headers.location), /-\d{11}\.jpg$/);
    const big = await fetch(`${fake.url}/release-group/${small}/front-1200`);
    assert.equal(big.status, 404, 'the redirects succeed, the file is missing');
  });

  it('serves index.json with sorted keys, an id beyond 32 bits and http:// URLs; answers OPTIONS and HEAD', async (t) => {
    const fake = await start(t);
    const { large } = groups(fake);
    const index: unknown = await (await fetch(`${fake.url}/release-group/${large}`)).json();
    const text = JSON.stringify(index);
    assert.match(text, /^\{"images":\[\{"approved":true,"back":false,/);
    assert.match(text, /"id":26\d{9},/);
    assert.match(text, /"small":"http:\/\/coverartarchive\.org\//);
    const options = await fetch(`${fake.url}/release-group/${large}/front`, { method: 'OPTIONS' });
    assert.equal(options.headers.get('allow'), 'GET, HEAD, OPTIONS');
    const head = await rawRequest(`${fake.url}/release-group/${large}/front-250`, { method: 'HEAD' });
    assert.deepEqual([head.status, head.text], [307, '']);
  });

  it('answers 503 on demand and counts requests per path', async (t) => {
    const fake = await start(t);
    const { large } = groups(fake);
    fake.failNext(1);
    assert.equal((await rawRequest(`${fake.url}/release-group/${large}/front-250`)).status, 503);
    assert.equal((await rawRequest(`${fake.url}/release-group/${large}/front-250`)).status, 307);
    assert.equal(fake.requestsTo(`/release-group/${large}`), 2);
  });
});
