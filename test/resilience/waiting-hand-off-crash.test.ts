import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { api } from '../helpers/api-client.js';
import { readDatabase } from '../helpers/read-stored.js';
import { between, runSeed, seededRandom } from './seeded-random.js';
import { SERVICE_CHILD, freePort, killAllServiceProcesses, startServiceProcess, type ServiceProcess } from './service-process.js';
import { writeServiceConfig } from './write-service-config.js';

// Issue 17: approved albums wait on the wishlist (entered_seq NULL) and enter it in the commit that hands them to
// the download client (entered_seq set, the download inserted). A real service process approves a batch at every
// run (the hand-off starts at once) while removals free download slots, and is killed with kill -9 at a random
// moment. After every restart each acknowledged approval has exactly one wishlist item (waiting or with a
// download, never both or neither) unless its removal was acknowledged, and every item being downloaded has
// exactly one download; in the database no waiting item has a download. Lean: one data dir, under 500 items (one
// page lists them all at one moment), ~10 s in all.

const RUNS = 6;
const BATCH = 60;
const MAX_ACTIVE = 25;
const KILL_AFTER_MS: [number, number] = [0, 120];

interface WishlistItem {
  id: string;
  queue_id?: string;
  status: string;
}
interface Download {
  wishlist_id: string;
  state: string;
}

after(() => killAllServiceProcesses());

async function listed<T>(service: ServiceProcess, path: string): Promise<{ items: T[]; total: number }> {
  const page = await api<{ items: T[]; total: number }>(service.baseUrl, 'GET', `${path}limit=500`);
  assert.equal(page.status, 200, `${path}: ${JSON.stringify(page.body)}`);
  assert.ok(page.body.total <= 500, `${path}: the test keeps every list on one page, found ${page.body.total}`);
  return page.body;
}

describe('waiting wishlist items across kill -9', () => {
  it(`keeps each acknowledged approval on the wishlist exactly once across ${RUNS} kill -9 during hand-offs and removals`, async (t) => {
    const seed = runSeed();
    const random = seededRandom(seed);
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-hand-off-crash-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const port = await freePort();
    const config = await writeServiceConfig(dir, port, { download_client: { max_active: MAX_ACTIVE, poll_interval: '1h' } });
    const approved = new Set<string>(); // queue ids whose approval was answered
    const removed = new Set<string>(); // queue ids whose wishlist item's removal was answered
    let unanswered: string[] = []; // queue ids of a batch whose approval the kill cut off
    let handedOff = 0;

    for (let run = 0; run <= RUNS; run++) {
      const service = await startServiceProcess({ script: SERVICE_CHILD, args: ['--config', config], port });
      const context = `seed ${seed}, run ${run}`;
      const wishlist = await listed<WishlistItem>(service, '/api/v1/wishlist?');
      const downloads = await listed<Download>(service, '/api/v1/downloads?');
      const byQueueId = new Map<string, number>();
      for (const item of wishlist.items) byQueueId.set(item.queue_id ?? '', (byQueueId.get(item.queue_id ?? '') ?? 0) + 1);
      assert.equal(wishlist.total, wishlist.items.length, `${context}: total and the listed items differ`);
      assert.deepEqual([...byQueueId].filter(([, n]) => n > 1), [], `${context}: an approval is on the wishlist twice`);
      // An approval cut off by the kill is applied entirely or not at all.
      const applied = unanswered.filter((id) => byQueueId.has(id)).length;
      assert.ok(applied === 0 || applied === unanswered.length, `${context}: ${applied} of ${unanswered.length} items of an unanswered approval are on the wishlist`);
      if (applied > 0) for (const id of unanswered) approved.add(id);
      unanswered = [];
      const lost = [...approved].filter((id) => !removed.has(id) && !byQueueId.has(id));
      assert.deepEqual(lost, [], `${context}: acknowledged approvals lost their wishlist item`);
      const kept = [...removed].filter((id) => byQueueId.has(id));
      assert.deepEqual(kept, [], `${context}: acknowledged removals came back`);
      const active = downloads.items.filter((d) => d.state !== 'completed' && d.state !== 'failed');
      const activeFor = new Map<string, number>();
      for (const download of active) activeFor.set(download.wishlist_id, (activeFor.get(download.wishlist_id) ?? 0) + 1);
      assert.deepEqual([...activeFor].filter(([, n]) => n > 1), [], `${context}: an item has two active downloads`);
      const downloading = wishlist.items.filter((item) => item.status === 'downloading');
      assert.deepEqual(downloading.filter((item) => !activeFor.has(item.id)).map((item) => item.id), [], `${context}: items downloading without a download`);
      assert.ok(active.length <= MAX_ACTIVE, `${context}: ${active.length} downloads active, at most ${MAX_ACTIVE} may be`);
      // Read beside the running service (a read-only connection sees the last commit): a hand-off is one commit.
      const waitingWithDownload = readDatabase(join(dir, 'data'), (db) =>
        db.prepare('SELECT DISTINCT w.id FROM wishlist_items w JOIN downloads d ON d.wishlist_id = w.id WHERE w.entered_seq IS NULL').pluck().all(),
      );
      assert.deepEqual(waitingWithDownload, [], `${context}: waiting items that have a download`);
      handedOff += downloading.length;
      if (run === RUNS) {
        assert.ok(handedOff > MAX_ACTIVE, `${context}: only ${handedOff} hand-offs seen`);
        assert.ok(wishlist.items.some((item) => item.status === 'wanted'), `${context}: no item was left waiting`);
        await service.stop();
        break;
      }

      // Free the download slots (each removal cancels a download), then add and approve a new batch: the hand-off
      // that follows the approval hands waiting items to the download client while the kill lands.
      for (const item of downloading) {
        const res = await api(service.baseUrl, 'DELETE', `/api/v1/wishlist/${item.id}`);
        if (res.status === 204 && item.queue_id) removed.add(item.queue_id);
      }
      const candidates = Array.from({ length: BATCH }, (_, i) => ({ artist: `Hand-off ${run}`, album: `Album ${i}` }));
      const added = await api<{ items: { id: string }[] }>(service.baseUrl, 'POST', '/api/v1/queue', candidates);
      assert.equal(added.status, 201, `${context}: ${JSON.stringify(added.body)}`);
      const ids = added.body.items.map((item) => item.id);
      const approving = api(service.baseUrl, 'POST', '/api/v1/queue/approve', { ids })
        .then((res) => {
          assert.equal(res.status, 200, `${context}: ${JSON.stringify(res.body)}`);
          for (const id of ids) approved.add(id);
        })
        .catch((err: unknown) => {
          if (err instanceof assert.AssertionError) throw err;
          unanswered = ids; // killed before the answer
        });
      await sleep(between(random, ...KILL_AFTER_MS));
      await service.kill9();
      await approving;
    }
  });
});
