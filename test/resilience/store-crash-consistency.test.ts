import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { DATABASE_FILE } from '../../core/storage/store.js';
import { readDatabase } from '../helpers/read-stored.js';
import { fetchJson, numberAt, postJson, recordOf, recordsAt, stringAt } from './json-fields.js';
import { between, runSeed, seededRandom } from './seeded-random.js';
import { SERVICE_CHILD, freePort, killAllServiceProcesses, startServiceProcess, type ServiceProcess } from './service-process.js';
import { writeServiceConfig } from './write-service-config.js';
import { ms, percentile, printReport } from './statistics.js';

// Issue 10, part 2: crash consistency of the store. A real service process (core/main.ts) takes concurrent
// additions, approvals and rejections over HTTP and is killed with kill -9 at a random moment; the next start
// on the same data dir must load the store and show every mutation whose HTTP answer had arrived (and, for
// mutations whose answer never came, either all of it or nothing). Nothing may pile up in the data dir: no file
// but the database, its WAL and shared-memory index, the lock and the metadata cache, and a WAL that stays near
// SQLite's checkpoint size. After the last kill of each dir a clean stop leaves the database alone, whole by
// SQLite's full integrity check, with the counts its triggers keep equal to its rows.
//
// Sizing (CI: 2 cores, whole suite ≤ 30 min): 200 kills in 4 parallel chains; each data dir takes 25 kills and is
// then checked once more and replaced, so the store stays a realistic size. Starting the service costs ~1.5 s
// of tsx loading, so this part takes about 3–5 min. Kills of a writer that checkpoints after nearly every commit,
// or cuts large commits part way, are in store-log-crash.test.ts.

const RUNS = 200;
const CHAINS = 4;
const RUNS_PER_DIR = 25;
const WORKERS = 4;
const KILL_AFTER_MS: [number, number] = [20, 700];
const WAL_FILE = `${DATABASE_FILE}-wal`;
/** What a running service keeps in its data dir (the lock's name is data-dir-lock.ts's; `cache` holds metadata). */
const RUNNING_FILES = new Set([DATABASE_FILE, WAL_FILE, `${DATABASE_FILE}-shm`, 'crateflow.lock', 'cache']);
/** What a clean stop leaves: the WAL folded into the database and removed with its index, the lock released. */
const STOPPED_FILES = new Set([DATABASE_FILE, 'cache']);
/**
 * SQLite copies the WAL into the database once it holds 1000 pages (4 KiB each here) and then writes it again from
 * its start, so a WAL past twice that means checkpoints no longer keep up: the log piles up.
 */
const MAX_WAL_BYTES = 8 * 1024 * 1024;

type Decision = 'approve' | 'reject';

/** What the test knows about one queue item it proposed. */
interface Known {
  artist: string;
  album: string;
  /** The id, once an answer (or a later listing) told it. */
  id?: string;
  /** Acknowledged: the add was answered 201 with this item. */
  added: boolean;
  decision?: { kind: Decision; acked: boolean };
}

interface ChainState {
  items: Map<string, Known>; // by artist (unique per candidate)
  byId: Map<string, Known>;
  nextCandidate: number;
}

interface Totals {
  runs: number;
  ackedAdds: number;
  ackedDecisions: number;
  unanswered: number;
  resolvedUnanswered: { applied: number; notApplied: number };
  maxWalBytes: number;
  startMs: number[];
  killAfterMs: number[];
  checksPassed: number;
}

after(async () => {
  await killAllServiceProcesses();
});

describe('store crash consistency under kill -9', () => {
  it(`keeps every acknowledged addition and decision across ${RUNS} kill -9 at random moments`, async (t) => {
    const seed = runSeed();
    const base = await mkdtemp(join(tmpdir(), 'crateflow-crash-'));
    t.after(() => rm(base, { recursive: true, force: true }));
    const totals: Totals = {
      runs: 0,
      ackedAdds: 0,
      ackedDecisions: 0,
      unanswered: 0,
      resolvedUnanswered: { applied: 0, notApplied: 0 },
      maxWalBytes: 0,
      startMs: [],
      killAfterMs: [],
      checksPassed: 0,
    };
    const started = Date.now();
    await Promise.all(Array.from({ length: CHAINS }, (_, chain) => runChain(chain, RUNS / CHAINS, join(base, `chain-${chain}`), seededRandom(seed + chain), totals)));
    const seconds = (Date.now() - started) / 1000;
    printReport(`store crash consistency — ${totals.runs} × kill -9`, [
      ['seed', `${seed} (RESILIENCE_SEED=${seed} replays it)`],
      ['sizing', `${RUNS} kills, ${CHAINS} chains in parallel: about 4–5 min on 2 cores (budget for this file: 6 min of the suite's 30)`],
      ['runs', `${totals.runs} kills in ${CHAINS} parallel chains, a fresh data dir every ${RUNS_PER_DIR} kills; ${WORKERS} concurrent clients per run`],
      ['kill moment', `uniform ${KILL_AFTER_MS[0]}–${KILL_AFTER_MS[1]} ms after the service answered /health (median ${ms(percentile(totals.killAfterMs, 50))})`],
      ['acknowledged mutations', `${totals.ackedAdds} additions, ${totals.ackedDecisions} approvals/rejections — all present after restart`],
      ['unanswered at the kill', `${totals.unanswered} requests; of the candidates and decisions they carried, ${totals.resolvedUnanswered.applied} were found applied whole after the restart, ${totals.resolvedUnanswered.notApplied} not at all`],
      ['consistency checks', `${totals.checksPassed} restarts checked (store loads, /health 200, every acknowledged change there, approvals have their wishlist item)`],
      ['data dir', `only ${[...RUNNING_FILES].join(', ')} right after a kill (largest WAL ${(totals.maxWalBytes / 1024).toFixed(0)} KiB, limit ${MAX_WAL_BYTES / 1024 / 1024} MiB); only ${[...STOPPED_FILES].join(', ')} after a clean stop, the database whole (integrity_check) and its counts equal to its rows`],
      ['service start', `median ${ms(percentile(totals.startMs, 50))}, p99 ${ms(percentile(totals.startMs, 99))}`],
      ['wall time', `${seconds.toFixed(0)} s`],
    ]);
    assert.equal(totals.runs, RUNS);
  });
});

async function runChain(chain: number, runs: number, root: string, random: () => number, totals: Totals): Promise<void> {
  for (let done = 0; done < runs; ) {
    const dir = join(root, `dir-${done}`);
    const port = await freePort();
    const dataDir = join(dir, 'data');
    await mkdir(dir, { recursive: true });
    // Approved items become downloads: the blackhole client writes request files, another writer of the store.
    const configPath = await writeServiceConfig(dir, port, { log: { level: 'error' }, download_client: { poll_interval: '1s' } });
    const state: ChainState = { items: new Map(), byId: new Map(), nextCandidate: 0 };
    const inThisDir = Math.min(RUNS_PER_DIR, runs - done);
    for (let run = 0; run < inThisDir; run++) {
      const service = await timedStart(configPath, port, totals);
      await checkConsistency(service, state, totals, `chain ${chain}, dir ${done}, run ${run}`);
      totals.checksPassed++;
      await loadAndKill(service, state, random, totals);
      const stray = (await readdir(dataDir)).filter((name) => !RUNNING_FILES.has(name));
      assert.deepEqual(stray, [], 'nothing but the database, its WAL and index, the lock and the cache after a kill');
      const walBytes = await stat(join(dataDir, WAL_FILE)).then((wal) => wal.size, () => 0);
      totals.maxWalBytes = Math.max(totals.maxWalBytes, walBytes);
      assert.ok(walBytes <= MAX_WAL_BYTES, `the WAL holds ${walBytes} bytes after a kill: checkpoints do not keep up`);
      totals.runs++;
    }
    done += inThisDir;
    // The last kill of this dir is checked by one more start, which then stops cleanly: the database alone is left.
    const service = await timedStart(configPath, port, totals);
    await checkConsistency(service, state, totals, `chain ${chain}, dir ${done}, final`);
    totals.checksPassed++;
    const stopped = await service.stop();
    assert.equal(stopped.code, 0, `clean stop:\n${service.output()}`);
    const left = (await readdir(dataDir)).filter((name) => !STOPPED_FILES.has(name));
    assert.deepEqual(left, [], 'a clean stop leaves the database alone (no WAL, no index, no lock)');
    checkStoredCounts(dataDir);
    await rm(dir, { recursive: true, force: true });
  }
}

async function timedStart(configPath: string, port: number, totals: Totals): Promise<ServiceProcess> {
  const begin = Date.now();
  const service = await startServiceProcess({ script: SERVICE_CHILD, args: ['--config', configPath], port });
  totals.startMs.push(Date.now() - begin);
  return service;
}

/** Concurrent clients add and decide until the kill at a random moment; records what was acknowledged. */
async function loadAndKill(service: ServiceProcess, state: ChainState, random: () => number, totals: Totals): Promise<void> {
  const killAfter = between(random, KILL_AFTER_MS[0], KILL_AFTER_MS[1]);
  totals.killAfterMs.push(killAfter);
  let killed = false;
  const api = `${service.baseUrl}/api/v1`;
  const undecided = () => [...state.byId.values()].filter((item) => item.added && !item.decision);

  const worker = async () => {
    while (!killed) {
      const roll = random();
      const open = undecided();
      try {
        if (roll < 0.4 || open.length < 3) {
          const fresh: Known[] = Array.from({ length: between(random, 1, 5) }, () => {
            const n = state.nextCandidate++;
            const known: Known = { artist: `Crash Artist ${n}`, album: `Crash Album ${n}`, added: false };
            state.items.set(known.artist, known);
            return known;
          });
          const { status, body } = await postJson(`${api}/queue`, fresh.map(({ artist, album }) => ({ artist, album, source: 'crash-test' })));
          assert.equal(status, 201, JSON.stringify(body));
          for (const item of recordsAt(body, 'items')) {
            const known = state.items.get(stringAt(item, 'artist') ?? '') ?? assert.fail(`an item the test did not send: ${JSON.stringify(item)}`);
            known.id = stringAt(item, 'id');
            known.added = true;
            if (known.id) state.byId.set(known.id, known);
            totals.ackedAdds++;
          }
          assert.equal(numberAt(body, 'duplicates'), 0);
        } else {
          const kind: Decision = roll < 0.8 ? 'approve' : 'reject';
          const chosen = open.sort(() => random() - 0.5).slice(0, roll < 0.6 ? 1 : between(random, 2, 5));
          for (const item of chosen) item.decision = { kind, acked: false };
          const ids = chosen.map((item) => item.id ?? '');
          const single = chosen.length === 1;
          const { status, body } = single ? await postJson(`${api}/queue/${ids[0]}/${kind}`, undefined) : await postJson(`${api}/queue/${kind}`, { ids });
          assert.equal(status, 200, `${kind} ${ids.join(',')}: ${status} ${JSON.stringify(body)}`);
          if (!single) assert.equal(numberAt(body, 'count'), chosen.length, 'every selected item was pending');
          for (const item of chosen) {
            if (item.decision) item.decision.acked = true;
            totals.ackedDecisions++;
          }
        }
      } catch (err: unknown) {
        if (err instanceof assert.AssertionError) throw err;
        if (!killed) throw err;
        // Killed mid-request: this mutation was not acknowledged; the next start decides whether it happened.
        totals.unanswered++;
      }
      await sleep(between(random, 0, 8));
    }
  };
  const workers = Array.from({ length: WORKERS }, worker);
  await sleep(killAfter);
  killed = true;
  await service.kill9();
  await Promise.all(workers);
}

/**
 * After a restart: the store loaded (the service answers), every acknowledged mutation is there, and every
 * unacknowledged one is there entirely or not at all. Unanswered ones are then settled in the state.
 */
async function checkConsistency(service: ServiceProcess, state: ChainState, totals: Totals, where: string): Promise<void> {
  const health = await fetchJson(`${service.baseUrl}/health`);
  assert.equal(health.status, 200, `${where}: /health ${health.status} ${JSON.stringify(health.body)}`);
  const pending = await listAll(`${service.baseUrl}/api/v1/queue/pending?sort=added_at&order=asc`);
  const wishlist = await listAll(`${service.baseUrl}/api/v1/wishlist?`);
  const pendingByArtist = new Map<string, string>();
  for (const item of pending) {
    const artist = stringAt(item, 'artist') ?? '';
    assert.ok(!pendingByArtist.has(artist), `${where}: "${artist}" is pending twice`);
    pendingByArtist.set(artist, stringAt(item, 'id') ?? '');
  }
  const wishedByQueueId = new Map<string, number>();
  for (const item of wishlist) {
    const queueId = stringAt(item, 'queue_id');
    if (queueId) wishedByQueueId.set(queueId, (wishedByQueueId.get(queueId) ?? 0) + 1);
  }
  for (const [queueId, count] of wishedByQueueId) assert.equal(count, 1, `${where}: queue item ${queueId} is on the wishlist ${count} times`);

  for (const known of state.items.values()) {
    const pendingId = pendingByArtist.get(known.artist);
    if (!known.added) {
      // The add was never answered: either the whole batch item is there (pending) or nothing of it.
      if (pendingId) {
        known.id = pendingId;
        known.added = true;
        state.byId.set(pendingId, known);
        totals.resolvedUnanswered.applied++;
      } else {
        totals.resolvedUnanswered.notApplied++;
        state.items.delete(known.artist);
      }
      continue;
    }
    const id = known.id ?? assert.fail(`${where}: an acknowledged item without id`);
    const wished = wishedByQueueId.has(id);
    const label = `${where}: "${known.artist}" (${id})`;
    if (!known.decision) {
      assert.equal(pendingId, id, `${label} was acknowledged as added but is not pending after the restart`);
      assert.ok(!wished, `${label} is on the wishlist without an approval`);
    } else if (known.decision.acked) {
      assert.equal(pendingId, undefined, `${label}: its acknowledged ${known.decision.kind} was lost (still pending)`);
      assert.equal(wished, known.decision.kind === 'approve', `${label}: acknowledged ${known.decision.kind}, wishlist item ${wished ? 'present' : 'missing'}`);
    } else {
      // Unanswered decision: applied (with its wishlist item for an approval) or not at all.
      const applied = pendingId === undefined;
      if (applied) assert.equal(wished, known.decision.kind === 'approve', `${label}: a half-applied ${known.decision.kind}`);
      else assert.ok(!wished, `${label}: pending and on the wishlist at once`);
      totals.resolvedUnanswered[applied ? 'applied' : 'notApplied']++;
      known.decision = applied ? { kind: known.decision.kind, acked: true } : undefined;
    }
  }
  for (const artist of pendingByArtist.keys()) assert.ok(state.items.has(artist), `${where}: "${artist}" is pending but was never sent`);
}

/**
 * The stopped database read directly: SQLite's full integrity check (every page, every index entry against its
 * row) passes, and the counts the triggers keep per status equal the rows, so no kill split a row from its count.
 */
function checkStoredCounts(dataDir: string): void {
  readDatabase(dataDir, (db) => {
    assert.deepEqual(db.pragma('integrity_check', { simple: false }), [{ integrity_check: 'ok' }]);
    const counted = (sql: string) => Object.fromEntries((db.prepare(sql).all() as { k: string; n: number }[]).filter((row) => row.n !== 0).map((row) => [row.k, row.n]));
    assert.deepEqual(
      counted("SELECT status || '/' || source AS k, n FROM queue_counts ORDER BY k"),
      counted("SELECT status || '/' || source AS k, count(*) AS n FROM queue_items GROUP BY status, source ORDER BY k"),
      'queue_counts equal the queue rows',
    );
    assert.deepEqual(
      counted("SELECT status || '/' || waiting AS k, n FROM wishlist_counts ORDER BY k"),
      counted("SELECT status || '/' || (entered_seq IS NULL) AS k, count(*) AS n FROM wishlist_items GROUP BY status, entered_seq IS NULL ORDER BY k"),
      'wishlist_counts equal the wishlist rows',
    );
  });
}

async function listAll(url: string): Promise<Record<string, unknown>[]> {
  const all: Record<string, unknown>[] = [];
  for (let offset = 0; ; offset += 500) {
    const { status, body } = await fetchJson(`${url}&limit=500&offset=${offset}`);
    assert.equal(status, 200, `${url}: ${status}`);
    all.push(...recordsAt(body, 'items'));
    if (offset + 500 >= numberAt(recordOf(body, url), 'total')) return all;
  }
}
