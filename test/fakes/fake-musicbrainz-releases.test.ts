import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { startFakeMusicBrainz, type FakeMusicBrainz } from './fake-musicbrainz.js';
import { isJsonObject } from './is-json-object.js';

const UA = { 'user-agent': 'CrateflowTest/0.1 ( https://example.org/crateflow )' };

async function start(t: TestContext): Promise<FakeMusicBrainz> {
  const fake = await startFakeMusicBrainz({ rateLimit: false });
  t.after(() => fake.close());
  return fake;
}

async function get(fake: FakeMusicBrainz, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${fake.url}/ws/2/${path}`, { headers: UA });
  const body: unknown = await res.json();
  assert.ok(isJsonObject(body), `${path} answers a JSON object`);
  return { status: res.status, body };
}

function list(value: unknown): Record<string, unknown>[] {
  assert.ok(Array.isArray(value), 'expected an array');
  return value.filter(isJsonObject);
}

describe('fake MusicBrainz releases', () => {
  it('browses a release group\'s releases with each medium\'s track count, counted and sorted by MBID', async (t) => {
    const fake = await start(t);
    const group = fake.catalogue.releaseGroups.find((candidate) => candidate.releases.length === 3);
    assert.ok(group);
    const { status, body } = await get(fake, `release?release-group=${group.id}&inc=media&limit=100&fmt=json`);
    assert.equal(status, 200);
    assert.equal(body['release-count'], 3);
    const releases = list(body['releases']);
    assert.deepEqual(releases.map((release) => release['id']), group.releases.map((release) => release.id).sort());
    for (const release of releases) {
      const media = list(release['media']);
      assert.equal(media[0]?.['track-count'], 2);
      assert.equal(media[0]?.['tracks'], undefined, 'a browse with inc=media lists no tracks');
    }
  });

  it('looks up a release with its tracks and their recordings under inc=recordings', async (t) => {
    const fake = await start(t);
    const group = fake.catalogue.releaseGroups[2];
    const release = group?.releases[0];
    assert.ok(group && release);
    const { status, body } = await get(fake, `release/${release.id}?inc=recordings&fmt=json`);
    assert.equal(status, 200);
    const tracks = list(list(body['media'])[0]?.['tracks']);
    assert.deepEqual(tracks.map((track) => [track['position'], track['title']]), [[1, `${group.title} (track 1)`], [2, `${group.title} (track 2)`]]);
    assert.ok(isJsonObject(tracks[0]?.['recording']));
    assert.equal(tracks[1]?.['length'], null, 'an unknown length is null');
  });

  it('answers 404 for an unknown release group or release and 400 for a malformed id', async (t) => {
    const fake = await start(t);
    const unknown = '00000000-0000-4000-a000-000000000000';
    assert.equal((await get(fake, `release?release-group=${unknown}&fmt=json`)).status, 404);
    assert.equal((await get(fake, `release/${unknown}?fmt=json`)).status, 404);
    const malformed = await get(fake, 'release?release-group=nope&fmt=json');
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body['error'], 'Invalid mbid.');
  });
});
