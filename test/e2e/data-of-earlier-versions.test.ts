// The service started on copies of data dirs earlier versions left behind: the fixtures the services of commits
// 6a41c8b and c086ec1 wrote through their API (test/fixtures/write-old-data-dir.mjs: a library sync of two albums,
// seven proposals decided, two albums added to the wishlist by hand, then after a restart Lush — Spooky approved
// and the service killed before the webhooks sink took that event). Its first start imports the old files into the
// database and moves them to storage.dir/pre-sqlite/; from then on the API, the intake's duplicate checks, the
// wishlist and the webhooks sink work on what was imported. How each record is imported is tested in
// test/core/pre-sqlite-import; here, what the running service makes of it.
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeWebhookReceiver, type FakeWebhookReceiver } from '../fakes/fake-webhook-receiver.js';
import { api, eventually } from '../helpers/api-client.js';
import { startApp, type StartedApp } from '../helpers/start-app.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));

// Albums of the scenario asked for again, named as other sources name them: credits in another order or joined
// otherwise, other case, punctuation and edition suffixes, the mbid in lower case. The name keys the old files hold
// were made by earlier rules (a credit as written, in its order); each album is still found where it is.
const ASKED = [
  { artist: 'Autechre & Boards of Canada', album: 'Split Signals' },
  { artist: 'JAY\u2010Z & Kanye West', album: 'Watch the Throne' },
  { artist: 'Angelo De Augustine & Sufjan Stevens', album: 'A Beginner\u2019s Mind' },
  { artist: 'Sufjan Stevens & Bon Iver', album: 'Some Collab' },
  { artist: 'LOW', album: 'Double Negative (Deluxe Edition)' },
  { artist: 'Someone Else', album: 'Another Title', mbid: '0b6c8b4b-76e1-4e0b-9c8a-6e1d7e1d5a01' },
  { artist: 'galaxie 500', album: 'On Fire' },
  { artist: 'Lush', album: 'Spooky' },
];
const FOUND = [
  ['queue', 'rejected'], ['wishlist', 'wanted'], ['library', 'in_library'], ['queue', 'pending'], ['queue', 'rejected'],
  ['queue', 'rejected'], ['wishlist', 'wanted'], ['wishlist', 'wanted'],
];

const VERSIONS = [
  {
    dir: 'data-dir-6a41c8b',
    files: 'every document one JSON object, decided items in the core document and the library\'s albums in library.json',
    // No restore then: Heaven or Las Vegas stayed rejected.
    totals: { pending: 2, approved: 4, rejected: 3, wishlist: 6, library: 2 },
  },
  {
    dir: 'data-dir-c086ec1',
    files: 'snapshot lines and change logs, the decision history, the waiting list and the albums file',
    totals: { pending: 3, approved: 4, rejected: 2, wishlist: 6, library: 2 },
  },
];

interface Page {
  total: number;
}

interface Delivery {
  event: string;
  event_id: string;
  status: string;
}

/** The service on `dir`, as the old one was set up: one download slot (taken by its download), the fixture's webhook. */
function startOn(dir: string, receiver: FakeWebhookReceiver): Promise<StartedApp> {
  return startApp({
    config: {
      storage: { dir },
      // A library folder that does not exist: a sync fails and keeps the imported catalogue instead of emptying it.
      library: { path: join(dir, '..', 'no-music'), sync_interval: '1d' },
      download_client: { max_active: 1 },
      webhooks: [{ name: 'fixture-hook', url: receiver.url, secret: 'fixture-only-not-a-secret', events: ['queue_approved', 'queue_rejected'] }],
    },
  });
}

async function totalsOf(app: StartedApp) {
  const total = async (path: string) => (await api<Page>(app.baseUrl, 'GET', `/api/v1${path}`)).body.total;
  return {
    pending: await total('/queue/pending'),
    approved: await total('/queue?status=approved'),
    rejected: await total('/queue?status=rejected'),
    wishlist: await total('/wishlist'),
    library: await total('/library'),
  };
}

/** Where POST /queue finds each album of ASKED (none of them is added). */
async function duplicatesOf(app: StartedApp): Promise<string[][]> {
  const res = await api<{ items: unknown[]; skipped: { index: number; duplicate_of: { in: string; status: string } }[] }>(app.baseUrl, 'POST', '/api/v1/queue', ASKED);
  assert.equal(res.status, 201);
  assert.deepEqual(res.body.items, [], 'nothing added');
  return res.body.skipped.map((skipped) => [ASKED[skipped.index]?.album ?? '?', skipped.duplicate_of.in, skipped.duplicate_of.status]);
}

async function deliveriesOf(app: StartedApp): Promise<Delivery[]> {
  return (await api<{ items: Delivery[] }>(app.baseUrl, 'GET', '/api/v1/webhooks/deliveries?webhook=fixture-hook&limit=500')).body.items;
}

async function copyOf(t: TestContext, name: string): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'crateflow-earlier-version-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  const dir = join(root, 'data');
  await cp(fixture(name), dir, { recursive: true });
  return dir;
}

describe('the service on a data dir of an earlier version', () => {
  for (const version of VERSIONS) {
    it(`imports the data dir of ${version.dir.replace('data-dir-', 'commit ')} (${version.files}) at its first start, serves it, finds its albums by today's keys, sends the event its sink had not taken, keeps the old files in pre-sqlite/ and imports nothing at the next start`, async (t) => {
      const dir = await copyOf(t, version.dir);
      const oldFiles = (await readdir(dir)).sort();
      const receiver = await startFakeWebhookReceiver();
      t.after(() => receiver.close());
      const expectedFound = ASKED.map((album, i) => [album.album, ...(FOUND[i] ?? [])]);

      const first = await startOn(dir, receiver);
      let deliveries: Delivery[];
      try {
        assert.deepEqual(await totalsOf(first), version.totals);
        assert.deepEqual(await duplicatesOf(first), expectedFound);
        const added = await api(first.baseUrl, 'POST', '/api/v1/wishlist', { artist: 'MAZZY STAR', album: 'So Tonight That I Might See', type: 'album' });
        assert.equal(added.status, 409, 'the album added to the wishlist by hand is wanted already');

        // The approval of Spooky was journaled for the webhooks sink, which had not taken it when the old service died.
        const [request] = await receiver.waitFor(1);
        const body = JSON.parse(request?.body.toString('utf8') ?? '{}') as { event?: string; data?: { artist?: string; album?: string } };
        assert.deepEqual([body.event, body.data?.artist, body.data?.album], ['queue_approved', 'Lush', 'Spooky']);
        // The sink's own storage came through too: the deliveries the old service gave up on are listed beside it.
        deliveries = await eventually(async () => {
          const listed = await deliveriesOf(first);
          return listed.some((delivery) => delivery.status === 'delivered') ? listed : undefined;
        }, 30_000, 'the delivery of the resumed event');
        // Three approvals and three rejections the old service could not deliver (a closed port), given up on.
        assert.deepEqual(deliveries.map((delivery) => [delivery.event, delivery.status]).sort(), [
          ['queue_approved', 'delivered'], ['queue_approved', 'failed'], ['queue_approved', 'failed'], ['queue_approved', 'failed'],
          ['queue_rejected', 'failed'], ['queue_rejected', 'failed'], ['queue_rejected', 'failed'],
        ]);
      } finally {
        await first.close();
      }
      assert.deepEqual((await readdir(dir)).filter((name) => oldFiles.includes(name)), [], 'no old file left in storage.dir');
      assert.deepEqual((await readdir(join(dir, 'pre-sqlite'))).sort(), oldFiles);

      const second = await startOn(dir, receiver);
      try {
        assert.deepEqual(await totalsOf(second), version.totals, 'nothing imported twice');
        assert.deepEqual(await duplicatesOf(second), expectedFound);
        assert.deepEqual(await deliveriesOf(second), deliveries);
        assert.equal(receiver.received.length, 1, 'the event delivered before the restart is not sent again');
      } finally {
        await second.close();
      }
      assert.deepEqual((await readdir(join(dir, 'pre-sqlite'))).sort(), oldFiles);
    });
  }
});
