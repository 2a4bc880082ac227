import { createHttpClient, RetryLaterError, systemClock, type Clock, type HttpClient } from '@crateflow/sdk';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { createLogger } from '../../../core/logging/create-logger.js';
import { MusicBrainzClient, type MusicBrainzClientOptions } from '../../../core/metadata/musicbrainz-client.js';
import { PROJECT_URL } from '../../../core/metadata/project-url.js';
import { readVersion } from '../../../core/version.js';
import { startFakeMusicBrainz, type FakeMusicBrainz, type FakeMusicBrainzOptions } from '../../fakes/fake-musicbrainz.js';
import { listenOnLoopback } from '../../fakes/listen-on-loopback.js';
import { fakeMbid } from '../../fakes/musicbrainz-catalogue.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { runOnClock } from '../../helpers/run-on-clock.js';

const DAY = 24 * 60 * 60 * 1000;
const CONTACT = 'https://example.org/crateflow-test';

interface Setup {
  readonly fake: FakeMusicBrainz;
  readonly clock: ManualClock;
  readonly dataDir: string;
  /** Clock time at which the client handed each request to HTTP. */
  readonly sentAt: number[];
  open(overrides?: Partial<MusicBrainzClientOptions>): Promise<MusicBrainzClient>;
  /** Awaits `work`, moving the clock only while no request is in flight. */
  run<T>(work: Promise<T>): Promise<T>;
}

/** A fake and clients sharing one manual clock; every request the client sends is timed on that clock. */
async function setUp(t: TestContext, fakeOptions: FakeMusicBrainzOptions = {}): Promise<Setup> {
  const clock = new ManualClock();
  const fake = await startFakeMusicBrainz({ clock, ...fakeOptions });
  const dataDir = await mkdtemp(join(tmpdir(), 'crateflow-mb-'));
  const http = createHttpClient({ userAgent: 'overridden-per-request', defaultTimeoutMs: 5000 });
  t.after(() => Promise.all([fake.close(), http.close(), rm(dataDir, { recursive: true, force: true })]));
  const sentAt: number[] = [];
  let inFlight = 0;
  const timed: HttpClient = {
    request: async (req) => {
      sentAt.push(clock.now());
      inFlight++;
      try {
        return await http.request(req);
      } finally {
        inFlight--;
      }
    },
  };
  const open = (overrides: Partial<MusicBrainzClientOptions> = {}) => MusicBrainzClient.open({
    version: readVersion(), contact: CONTACT, dataDir, clock, log: createLogger('silent'), baseUrl: fake.url, http: timed, ...overrides,
  });
  const run = <T>(work: Promise<T>) => runOnClock(clock, work, { busy: () => inFlight > 0 });
  return { fake, clock, dataDir, sentAt, open, run };
}

function gaps(times: readonly number[]): number[] {
  return times.slice(1).map((time, index) => time - (times[index] ?? 0));
}

describe('MusicBrainzClient', () => {
  it('identifies itself as Crateflow/<version> ( <project URL>; <contact> ) and asks for JSON both ways', async (t) => {
    const { fake, run, open } = await setUp(t);
    const client = await open();
    const artist = fake.catalogue.artists[1];
    const found = await run(client.artist(artist?.id ?? ''));
    assert.equal(found?.name, artist?.name);
    assert.equal(fake.answered[0]?.userAgent, `Crateflow/${readVersion()} ( ${PROJECT_URL}; ${CONTACT} )`);
    assert.equal(fake.answered[0]?.query.get('fmt'), 'json');
  });

  it('needs no contact: without metadata.contact the User-Agent names the project and its address (issue #28)', async (t) => {
    const { fake, run, open } = await setUp(t);
    for (const contact of [undefined, '  ']) {
      const client = await open(contact === undefined ? { contact: undefined } : { contact });
      const group = fake.catalogue.releaseGroups[contact === undefined ? 0 : 1];
      assert.equal((await run(client.releaseGroup(group?.id ?? '')))?.title, group?.title);
      await client.close();
    }
    assert.deepEqual(fake.answered.map((answer) => [answer.status, answer.userAgent]), [
      [200, `Crateflow/${readVersion()} ( ${PROJECT_URL} )`],
      [200, `Crateflow/${readVersion()} ( ${PROJECT_URL} )`],
    ]);
    assert.match(PROJECT_URL, /^https:\/\//, 'a contact URL, as MusicBrainz asks of an application');
  });

  it('spaces requests from many concurrent callers at least 1 s apart, so the fake never answers 503', async (t) => {
    const { fake, run, sentAt, open } = await setUp(t, { rateLimit: { perSecond: 1, burst: 1 } });
    const client = await open();
    const groups = fake.catalogue.releaseGroups.slice(0, 6);
    const found = await run(Promise.all(groups.map((group) => client.releaseGroup(group.id))));
    assert.deepEqual(found.map((group) => group?.mbid), groups.map((group) => group.id));
    assert.equal(sentAt.length, 6);
    for (const gap of gaps(sentAt)) assert.ok(gap >= 1000, `requests ${gap} ms apart`);
    assert.equal(fake.refusedForRate, 0);
    assert.equal(fake.answered.filter((request) => request.status === 503).length, 0);
  });

  it('browses every page of an artist with more than 100 release groups and orders them by first release date', async (t) => {
    const { fake, run, open } = await setUp(t);
    const client = await open();
    const artist = fake.catalogue.artists[0]?.id ?? '';
    const groups = await run(client.releaseGroupsOfArtist(artist));
    assert.equal(groups?.length, fake.catalogue.releaseGroupsOf(artist).length);
    assert.ok((groups?.length ?? 0) > 100);
    assert.equal(fake.requestsTo('/ws/2/release-group'), 2);
    const dates = (groups ?? []).map((group) => group.firstReleaseDate ?? '~');
    assert.deepEqual(dates, [...dates].sort());
    assert.equal(groups?.at(-1)?.firstReleaseDate, undefined, 'unknown dates ("") last, as undefined');
    const albums = await run(client.releaseGroupsOfArtist(artist, ['album']));
    assert.ok(albums?.every((group) => group.primaryType === 'Album'));
    assert.equal(await run(client.releaseGroupsOfArtist(fakeMbid(7, 'nobody'))), undefined);
  });

  it('backs off on 503 for as long as Retry-After says, at least 1 s, then succeeds', async (t) => {
    const { fake, run, sentAt, open } = await setUp(t, { rateLimit: false });
    const client = await open();
    fake.failNext(1, 'ip-rate');
    fake.failNext(1, 'busy');
    const group = fake.catalogue.releaseGroups[2];
    const found = await run(client.releaseGroup(group?.id ?? ''));
    assert.equal(found?.title, group?.title);
    assert.deepEqual(fake.answered.map((request) => request.status), [503, 503, 200]);
    const [first = 0, second = 0] = gaps(sentAt);
    assert.ok(first >= 1000, `waited ${first} ms after Retry-After: 1`);
    assert.ok(second >= 2000, `the second backoff doubles even though Retry-After says 0 (waited ${second} ms)`);
  });

  it('gets every answer through the fake\'s default load shedding (a busy 503 with Retry-After: 0 every 8th request)', async (t) => {
    const { fake, run, open } = await setUp(t, { rateLimit: false });
    const client = await open();
    const groups = fake.catalogue.releaseGroups.slice(0, 20);
    const found = await run(Promise.all(groups.map((group) => client.releaseGroup(group.id))));
    assert.deepEqual(found.map((group) => group?.mbid), groups.map((group) => group.id));
    assert.equal(fake.shed, 2, 'the 8th and 16th requests were shed');
    assert.equal(fake.answered.filter((request) => request.status === 200).length, 20);
  });

  it('holds every other caller back while one backs off', async (t) => {
    const { fake, run, sentAt, open } = await setUp(t, { rateLimit: false });
    const client = await open();
    fake.failNext(1, 'ip-rate');
    const [a, b] = fake.catalogue.releaseGroups;
    await run(Promise.all([client.releaseGroup(a?.id ?? ''), client.releaseGroup(b?.id ?? '')]));
    assert.equal(sentAt.length, 3);
    assert.ok(gaps(sentAt).every((gap) => gap >= 1000), `gaps ${gaps(sentAt).join(', ')}`);
  });

  it('gives up after its attempts with a RetryLaterError, and survives an HTML outage page', async (t) => {
    const { fake, run, open } = await setUp(t, { rateLimit: false });
    const client = await open({ maxAttempts: 3 });
    fake.failNext(3, 'html-502');
    const artist = fake.catalogue.artists[0]?.id ?? '';
    await assert.rejects(run(client.artist(artist)), (err: unknown) => err instanceof RetryLaterError && /after 3 attempts/.test(err.message));
    fake.failNext(1, 'html-502');
    assert.equal((await run(client.artist(artist)))?.mbid, artist);
  });

  it('answers from the disk cache after a restart without a single request', async (t) => {
    const { fake, run, open } = await setUp(t);
    const artist = fake.catalogue.artists[0];
    const group = fake.catalogue.releaseGroups[0];
    const recording = fake.catalogue.recordings[0];
    const first = await open();
    const before = await run(Promise.all([
      first.releaseGroup(group?.id ?? ''), first.releaseGroupsOfArtist(artist?.id ?? ''), first.searchArtists(artist?.name ?? ''),
      first.recordingReleaseGroups(recording?.id ?? ''), first.artist(fakeMbid(9, 'unknown')),
    ]));
    const made = fake.answered.length;
    await first.close();
    const second = await open();
    const after = await Promise.all([
      second.releaseGroup(group?.id ?? ''), second.releaseGroupsOfArtist(artist?.id ?? ''), second.searchArtists(artist?.name ?? ''),
      second.recordingReleaseGroups(recording?.id ?? ''), second.artist(fakeMbid(9, 'unknown')),
    ]);
    assert.deepEqual(after, before);
    assert.equal(fake.answered.length, made, 'no request after the restart');
  });

  it('fetches again once an entry outlives its time to live: 30 days for a release group, 1 day for a search', async (t) => {
    const { fake, clock, run, open } = await setUp(t);
    const client = await open();
    const group = fake.catalogue.releaseGroups[0];
    const ask = () => run(Promise.all([client.releaseGroup(group?.id ?? ''), client.searchReleaseGroups({ title: group?.title ?? '' })]));
    await ask();
    assert.equal(fake.answered.length, 2);
    await clock.advance(DAY - 1);
    await ask();
    assert.equal(fake.answered.length, 2);
    await clock.advance(2);
    await ask();
    assert.deepEqual([fake.requestsTo('/ws/2/release-group/'), fake.answered.length], [1, 3], 'only the search was fetched again');
    await clock.advance(30 * DAY);
    await ask();
    assert.equal(fake.requestsTo('/ws/2/release-group/'), 2);
  });

  it('drops a damaged cache file and fetches the entry again', async (t) => {
    const { fake, run, dataDir, open } = await setUp(t);
    const group = fake.catalogue.releaseGroups[0];
    await run((await open()).releaseGroup(group?.id ?? ''));
    const dir = join(dataDir, 'cache', 'musicbrainz');
    const [file] = await readdir(dir);
    await writeFile(join(dir, file ?? ''), '{"key": "/ws/2/release-gr');
    await writeFile(join(dir, 'leftover.json.123.tmp'), 'half a write');
    const client = await open();
    assert.equal((await run(client.releaseGroup(group?.id ?? '')))?.title, group?.title);
    assert.equal(fake.answered.length, 2);
    assert.deepEqual((await readdir(dir)).length, 1, 'the stray temporary file is gone');
  });

  it('still answers when the cache cannot be written', async (t) => {
    const { fake, run, dataDir, open } = await setUp(t);
    const client = await open();
    const dir = join(dataDir, 'cache', 'musicbrainz');
    await rm(dir, { recursive: true });
    await writeFile(dir, 'a file where the cache directory was');
    const group = fake.catalogue.releaseGroups[0];
    assert.equal((await run(client.releaseGroup(group?.id ?? '')))?.title, group?.title);
  });

  it('keeps the cache under its size bound by deleting the oldest entries', async (t) => {
    const { fake, clock, run, dataDir, open } = await setUp(t);
    const client = await open({ cacheMaxBytes: 4000 });
    for (const group of fake.catalogue.releaseGroups.slice(0, 8)) {
      await run(client.releaseGroup(group.id));
      await clock.advance(10);
    }
    const dir = join(dataDir, 'cache', 'musicbrainz');
    const sizes = await Promise.all((await readdir(dir)).map(async (name) => (await stat(join(dir, name))).size));
    assert.ok(sizes.reduce((sum, size) => sum + size, 0) <= 4000);
    assert.ok(sizes.length >= 2 && sizes.length < 8, `${sizes.length} entries kept`);
    const newest = fake.catalogue.releaseGroups[7];
    const asked = fake.answered.length;
    await client.releaseGroup(newest?.id ?? '');
    assert.equal(fake.answered.length, asked, 'the newest entry is still cached');
  });

  it('searches release groups with quotes in the title escaped, and resolves a recording to its release groups once each', async (t) => {
    const { fake, run, open } = await setUp(t);
    const client = await open();
    const quoted = fake.catalogue.releaseGroups.find((group) => group.title.includes('"'));
    const hits = await run(client.searchReleaseGroups({ title: quoted?.title ?? '', artist: quoted?.credit[0]?.name ?? '' }));
    assert.equal(hits[0]?.mbid, quoted?.id);
    assert.equal(hits[0]?.score, 100);
    const recording = fake.catalogue.recordings.find((item) => item.releaseIds.length > 2);
    const resolved = await run(client.recordingReleaseGroups(recording?.id ?? ''));
    const ids = resolved?.releaseGroups.map((group) => group.mbid) ?? [];
    assert.deepEqual(ids, [...new Set(ids)]);
    assert.ok(ids.length >= 1);
    assert.equal(resolved?.artistCredit, recording?.credit.map((part) => part.name + part.joinphrase).join(''));
  });

  it('follows the 301 of a merged MBID to the entity that absorbed it, and answers undefined for an unknown or malformed one', async (t) => {
    const { fake, run, open, sentAt } = await setUp(t);
    const client = await open();
    const [merged = '', target] = [...fake.catalogue.redirects].find(([, to]) => fake.catalogue.artist(to)) ?? [];
    assert.equal((await run(client.artist(merged)))?.mbid, target);
    assert.deepEqual(fake.answered.map((answer) => [answer.path, answer.status]), [[`/ws/2/artist/${merged}`, 301], [`/ws/2/artist/${target ?? ''}`, 200]]);
    assert.ok((gaps(sentAt)[0] ?? 0) >= 1000, 'the redirect is paced like any request');
    assert.equal((await run(client.artist(merged)))?.mbid, target, 'the old MBID is answered from the cache');
    assert.equal(await run(client.artist(fakeMbid(3, 'never'))), undefined);
    assert.equal(await client.artist('not-an-mbid'), undefined);
    assert.equal(fake.answered.length, 3, 'a cached answer and a malformed id cost no request');
  });

  it('refuses a redirect that leaves /ws/2 on the same host', async (t) => {
    const offHost = fakeMbid(4, 'moved off host');
    const elsewhere = await listenOnLoopback(async (req, res) => {
      res.writeHead(301, { location: req.url?.includes(offHost) ? 'https://musicbrainz.example.net/ws/2/artist/x' : '/not-the-api/', 'content-length': 0 });
      res.end();
    });
    t.after(() => elsewhere.close());
    const { run, open } = await setUp(t);
    const client = await open({ baseUrl: elsewhere.origin });
    await assert.rejects(run(client.artist(offHost)), /to https:\/\/musicbrainz\.example\.net\/ws\/2\/artist\/x \(301\); only \/ws\/2 on the same host is followed/);
    await assert.rejects(run(client.artist(fakeMbid(5, 'moved out of the api'))), /to \/not-the-api\/ \(301\); only \/ws\/2 on the same host is followed/);
  });

  it('keeps about 1 s between requests on the real clock', async (t) => {
    // The default burst of 2 absorbs loopback jitter: a request sent 1000 ms after the last may arrive 999 ms after it.
    const fake = await startFakeMusicBrainz();
    const dataDir = await mkdtemp(join(tmpdir(), 'crateflow-mb-real-'));
    const clock: Clock = systemClock();
    const client = await MusicBrainzClient.open({ version: readVersion(), contact: CONTACT, dataDir, clock, log: createLogger('silent'), baseUrl: fake.url });
    t.after(() => Promise.all([fake.close(), client.close(), rm(dataDir, { recursive: true, force: true })]));
    const started = Date.now();
    await Promise.all(fake.catalogue.artists.slice(0, 3).map((artist) => client.artist(artist.id)));
    const elapsed = Date.now() - started;
    // The spacing is the point; the upper bound only catches a hang (a loaded machine is slow, never too fast).
    assert.ok(elapsed >= 1900 && elapsed < 60_000, `three requests took ${elapsed} ms`);
    assert.equal(fake.refusedForRate, 0);
    for (const gap of gaps(fake.answered.map((request) => request.at))) assert.ok(gap >= 900, `arrivals ${gap} ms apart`);
  });
});
