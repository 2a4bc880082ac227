import { createHttpClient, RetryLaterError, type HttpClient } from '@crateflow/sdk';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { createLogger } from '../../../core/logging/create-logger.js';
import { CoverArtStore, type CoverArtStoreOptions } from '../../../core/metadata/cover-art-store.js';
import { startFakeCoverArtArchive, type FakeCoverArtArchive } from '../../fakes/fake-cover-art-archive.js';
import { ManualClock } from '../../helpers/manual-clock.js';

const DAY = 24 * 60 * 60 * 1000;

interface Setup {
  readonly fake: FakeCoverArtArchive;
  readonly clock: ManualClock;
  readonly dataDir: string;
  /** Most requests the store had in flight at once. */
  readonly peak: () => number;
  open(overrides?: Partial<CoverArtStoreOptions>): CoverArtStore;
  withArt: string[];
  withoutArt: string[];
}

async function setUp(t: TestContext): Promise<Setup> {
  const fake = await startFakeCoverArtArchive();
  const dataDir = await mkdtemp(join(tmpdir(), 'crateflow-covers-'));
  const http = createHttpClient({ userAgent: 'overridden', defaultTimeoutMs: 5000 });
  t.after(() => Promise.all([fake.close(), http.close(), rm(dataDir, { recursive: true, force: true })]));
  let inFlight = 0;
  let peak = 0;
  const counted: HttpClient = {
    request: async (req) => {
      peak = Math.max(peak, ++inFlight);
      try {
        return await http.request(req);
      } finally {
        inFlight--;
      }
    },
  };
  const clock = new ManualClock();
  const open = (overrides: Partial<CoverArtStoreOptions> = {}) => new CoverArtStore({
    dataDir, http: counted, clock, log: createLogger('silent'), userAgent: 'Crateflow/test ( https://example.org )', baseUrl: fake.url, ...overrides,
  });
  const ids = fake.catalogue.releaseGroups.map((group) => group.id);
  return {
    fake, clock, dataDir, peak: () => peak, open,
    withArt: ids.filter((id) => fake.imageOf(id, '500')), withoutArt: ids.filter((id) => !fake.imageOf(id, '500')),
  };
}

describe('CoverArtStore', () => {
  it('fetches a front cover once through the redirects, stores it, and serves it from disk afterwards, also after a restart', async (t) => {
    const { fake, open, withArt } = await setUp(t);
    const mbid = withArt[0] ?? '';
    const first = await open().get(mbid, 250);
    assert.notEqual(first, 'none');
    if (first === 'none') return;
    assert.equal(first.contentType, 'image/jpeg');
    assert.deepEqual(await readFile(first.path), fake.imageOf(mbid, '250'));
    const requests = fake.answered.length;
    assert.equal(requests, 3, 'coverartarchive.org, archive.org, the storage node');
    assert.deepEqual(await open().get(mbid, 250), first);
    assert.equal(fake.answered.length, requests, 'no request for a stored cover');
    const large = await open().get(mbid.toUpperCase(), 500);
    assert.ok(large !== 'none' && large.path.endsWith(`${mbid}-500.jpg`));
    assert.deepEqual(await readFile(large.path), fake.imageOf(mbid, '500'));
    assert.equal(fake.answered.find((request) => request.path.includes('/release-group/'))?.path, `/release-group/${mbid}/front-250`);
  });

  it('remembers a 404 for its time to live, then asks again', async (t) => {
    const { fake, clock, open, withoutArt } = await setUp(t);
    const store = open({ missingTtlMs: 2 * DAY });
    const mbid = withoutArt[0] ?? '';
    assert.equal(await store.get(mbid, 250), 'none');
    assert.equal(await store.get(mbid, 500), 'none');
    assert.equal(await open().get(mbid, 250), 'none');
    assert.equal(fake.requestsTo(`/release-group/${mbid}`), 1);
    await clock.advance(2 * DAY + 1);
    assert.equal(await store.get(mbid, 250), 'none');
    assert.equal(fake.requestsTo(`/release-group/${mbid}`), 2);
  });

  it('asks again when the missing-cover marker is damaged', async (t) => {
    const { fake, dataDir, open, withoutArt } = await setUp(t);
    const mbid = withoutArt[0] ?? '';
    await open().get(mbid, 250);
    await writeFile(join(dataDir, 'cache', 'covers', `${mbid}.missing`), 'not a ti');
    assert.equal(await open().get(mbid, 250), 'none');
    assert.equal(fake.requestsTo(`/release-group/${mbid}`), 2);
  });

  it('fetches a cover asked for by many callers at once a single time, and limits downloads in parallel', async (t) => {
    const { fake, open, peak, withArt } = await setUp(t);
    const store = open({ concurrency: 2 });
    const same = await Promise.all([1, 2, 3, 4].map(() => store.get(withArt[0] ?? '', 250)));
    assert.equal(new Set(same.map((cover) => (cover === 'none' ? 'none' : cover.path))).size, 1);
    assert.equal(fake.requestsTo(`/release-group/${withArt[0] ?? ''}`), 1);
    const many = await Promise.all(withArt.slice(1, 9).map((mbid) => store.get(mbid, 500)));
    assert.ok(many.every((cover) => cover !== 'none'));
    assert.ok(peak() <= 2, `${peak()} requests in flight at once`);
  });

  it('answers none without a request for an id that is not an MBID, and leaves no temporary files', async (t) => {
    const { fake, dataDir, open, withArt } = await setUp(t);
    assert.equal(await open().get('../../etc/passwd', 250), 'none');
    assert.equal(fake.answered.length, 0);
    await open().get(withArt[0] ?? '', 250);
    assert.deepEqual((await readdir(join(dataDir, 'cache', 'covers'))).filter((name) => name.endsWith('.tmp')), []);
  });

  it('throws RetryLaterError on a 503 and caches nothing, so the next call fetches', async (t) => {
    const { fake, open, withArt } = await setUp(t);
    const store = open();
    const mbid = withArt[0] ?? '';
    fake.failNext(1);
    await assert.rejects(store.get(mbid, 250), RetryLaterError);
    assert.notEqual(await store.get(mbid, 250), 'none');
  });
});
