import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DATABASE_FILE, Store } from '../../core/storage/store.js';
import { REPO_ROOT, TS_NODE_ARGS } from '../helpers/run-service.js';
import { between, runSeed, seededRandom } from './seeded-random.js';
import { ms, printReport } from './statistics.js';
import { endsTorn, readWalTail } from './wal-tail.js';

// Issue 10, part 2, at the level of the store itself: a small writer process commits through Store.change (the
// group commit every write of the service goes through) and is killed with kill -9 at random moments. After every
// kill the database is opened as a restart opens it (Store.open: integrity check, migrations) and must read as
// the state after some whole set of changes, with every acknowledged one in it. What the write-ahead log holds at
// the kill (SQLite's log, the heir of the old change log) is read from the file and reported. Two writers:
// test/fixtures/store-writer.ts (twenty changes per commit) and test/fixtures/resilience/checkpointing-writer.ts
// (changes of two rows each, the WAL copied into the database as often as a test asks). The kills through the real
// service are in store-crash-consistency.test.ts.

const GROUP_RUNS = 25;
const CHECKPOINT_RUNS = 100;
const TORN_RUNS = 40;
const RING = 16;
const STORE_WRITER = fileURLToPath(new URL('../fixtures/store-writer.ts', import.meta.url));
const CHECKPOINTING_WRITER = fileURLToPath(new URL('../fixtures/resilience/checkpointing-writer.ts', import.meta.url));
const WAL_FILE = `${DATABASE_FILE}-wal`;

describe('the store under kill -9', () => {
  it(`keeps every acknowledged change across ${GROUP_RUNS} kill -9 while twenty changes share each commit`, async (t) => {
    await killWriterRepeatedly(t, {
      runs: GROUP_RUNS,
      writer: [STORE_WRITER],
      title: 'twenty changes per group commit',
      setup: 'one test table; each change inserts record n and sets crash_last to n; 20 changes wait at once',
      check: (store) => {
        const records = store.db.prepare('SELECT n FROM crash_records ORDER BY n').pluck().all() as number[];
        const last = store.db.prepare('SELECT n FROM crash_last').pluck().get() as number | undefined;
        const m = last ?? 0;
        const gaps = records.filter((n, i) => n !== i + 1);
        if (records.length !== m || gaps.length > 0) return { m, problem: `records ${describeRange(records)} but crash_last ${m}: a change split or a hole` };
        return { m };
      },
    });
  });

  it(`keeps every change whole across ${CHECKPOINT_RUNS} kill -9 while the WAL is copied into the database after nearly every commit`, async (t) => {
    await killWriterRepeatedly(t, {
      runs: CHECKPOINT_RUNS,
      writer: [CHECKPOINTING_WRITER, '1', '0'],
      title: 'checkpoint after every commit, small rows',
      setup: 'one test table; each change sets two rows (counter and a ring slot); wal_autocheckpoint = 1 page',
      check: checkPairs,
    });
  });

  it('opens a database whose WAL ends in a commit cut part way, without it, and keeps later commits readable', async (t) => {
    // What a kill -9 in the middle of writing a commit leaves: the frames written so far, the last one cut short.
    // SQLite writes a commit's frames to the WAL and fsyncs before the commit returns, so the cut commit was never
    // acknowledged. The random kills below reach this now and then; here it is built on purpose.
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-torn-wal-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const live = await Store.open(join(dir, 'live'));
    live.db.pragma('wal_autocheckpoint = 0'); // everything stays in the WAL, where a crash finds it
    live.db.exec('CREATE TABLE torn_test (name TEXT PRIMARY KEY, filler TEXT NOT NULL) STRICT');
    const insertLive = live.db.prepare('INSERT INTO torn_test (name, filler) VALUES (?, ?)');
    await live.change(() => insertLive.run('acknowledged', 'a'.repeat(1000)));
    const acknowledgedEnd = (await readWalTail(join(live.dir, WAL_FILE))).committedEnd;
    await live.change(() => insertLive.run('cut', 'c'.repeat(256 * 1024)));
    const cutEnd = (await readWalTail(join(live.dir, WAL_FILE))).committedEnd;
    assert.ok(cutEnd - acknowledgedEnd > 50 * 4096, 'the second commit spans many frames');
    // Half its frames, and 100 bytes into the next one.
    const crashed = await copyAsKillLeftIt(live.dir, join(dir, 'crashed'), acknowledgedEnd + Math.floor((cutEnd - acknowledgedEnd) / 2) + 100);
    await live.close();
    const tail = await readWalTail(join(crashed, WAL_FILE));
    assert.ok(endsTorn(tail) && tail.partialBytes > 0, `the copy ends in a cut commit: ${JSON.stringify(tail)}`);

    const names = (store: Store) => store.db.prepare('SELECT name FROM torn_test ORDER BY name').pluck().all();
    const reopened = await Store.open(crashed); // does not throw: a cut commit is not damage
    try {
      assert.deepEqual(names(reopened), ['acknowledged'], 'the acknowledged commit is there, the cut one is not');
      await reopened.change(() => reopened.db.prepare('INSERT INTO torn_test (name, filler) VALUES (?, ?)').run('later', 'l'.repeat(1000)));
      // The later commit overwrote the first frames of the cut one; the rest of those stay in the file. Kill again
      // (copy as it is) and reopen: the later commit reads back, and the leftovers of the cut one do not come back.
      const crashedAgain = await copyAsKillLeftIt(crashed, join(dir, 'crashed-again'));
      const leftovers = await readWalTail(join(crashedAgain, WAL_FILE));
      assert.ok(leftovers.unfinishedFrames > 0, `frames of the cut commit are still in the WAL behind the later one: ${JSON.stringify(leftovers)}`);
      const again = await Store.open(crashedAgain);
      try {
        assert.deepEqual(names(again), ['acknowledged', 'later']);
      } finally {
        await again.close();
      }
    } finally {
      await reopened.close();
    }
  });

  it(`keeps every change whole across ${TORN_RUNS} kill -9 that cut large commits part way through the WAL`, async (t) => {
    await killWriterRepeatedly(t, {
      runs: TORN_RUNS,
      writer: [CHECKPOINTING_WRITER, '1000', String(256 * 1024)],
      title: '1 MiB commits, checkpoint at SQLite’s default 1000 pages',
      setup: 'one test table; each change sets two rows, the ring slot with 256 KiB of filler (4 changes a commit); wal_autocheckpoint = 1000 pages',
      check: checkPairs,
    });
  });
});

interface WriterRuns {
  runs: number;
  /** The fixture and its arguments after the data dir. */
  writer: [string, ...string[]];
  title: string;
  setup: string;
  /** Reads the reopened store: the last change m it holds, and what is wrong with it if anything. */
  check(store: Store): { m: number; problem?: string };
}

/**
 * Starts a writer on one data dir again and again, kills it -9 at a random moment each time, and opens the dir as
 * a restart would (Store.open, which refuses a damaged database). The state must be that after some change m with
 * m at least the highest acknowledged n, and whole (`check`).
 */
async function killWriterRepeatedly(t: { after: (fn: () => Promise<void>) => void }, options: WriterRuns): Promise<void> {
  const seed = runSeed();
  const random = seededRandom(seed);
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-store-kill-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const [script, ...args] = options.writer;
  let acked = 0;
  let highest = 0;
  let torn = 0;
  let walAtKill = 0;
  const violations: string[] = [];
  const started = Date.now();
  for (let run = 0; run < options.runs && violations.length === 0; run++) {
    const child = spawn(process.execPath, [...TS_NODE_ARGS, script, dir, ...args], { cwd: REPO_ROOT, stdio: 'pipe' });
    let out = '';
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const ready = await new Promise<boolean>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('ready\n')) resolve(true);
      });
      void exited.then(() => resolve(false));
    });
    if (!ready) {
      violations.push(`run ${run}: the writer did not start: ${errors.split('\n').find((l) => l.includes('Error')) ?? errors.slice(0, 300)}`);
      break;
    }
    await sleep(between(random, 5, 150));
    child.kill('SIGKILL');
    await exited;
    for (const match of out.matchAll(/^ack (\d+)$/gm)) acked = Math.max(acked, Number(match[1]));
    const tail = await readWalTail(join(dir, WAL_FILE));
    walAtKill = Math.max(walAtKill, tail.bytes);
    if (endsTorn(tail)) torn++;
    const store = await Store.open(dir).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
    if (store instanceof Error) {
      violations.push(`run ${run}: the store does not open: ${store.message}`);
      break;
    }
    try {
      const { m, problem } = options.check(store);
      if (m < acked) violations.push(`run ${run}: acknowledged ${acked} but the store holds changes up to ${m}`);
      if (problem) violations.push(`run ${run}: ${problem}`);
      highest = Math.max(highest, m);
    } finally {
      await store.close();
    }
  }
  printReport(`store under kill -9 — ${options.title}`, [
    ['seed', `${seed}`],
    ['sizing', `${options.runs} kills of a small writer process (each start ~1 s of tsx loading): 1–3 min on 2 cores`],
    ['setup', options.setup],
    ['kills', `${options.runs} (uniform 5–150 ms after the writer was ready); ${torn} left a commit cut part way at the end of the WAL (largest WAL at a kill ${(walAtKill / 1024).toFixed(0)} KiB)`],
    ['changes', `${highest} committed in all, ${acked} acknowledged before the last kill`],
    ['violations', violations.length === 0 ? 'none' : violations.join(' | ')],
    ['wall time', ms(Date.now() - started)],
  ]);
  assert.deepEqual(violations, [], 'the store always opens as the state after whole changes, with every acknowledged one');
  assert.ok(acked > options.runs, `only ${acked} changes were acknowledged in ${options.runs} runs: the writer hardly wrote`);
}

/** The pairs of the checkpointing writer: counter m and the ring slots holding m-15..m, each in its own slot. */
function checkPairs(store: Store): { m: number; problem?: string } {
  const rows = store.db.prepare('SELECT key, n FROM crash_pairs').all() as { key: string; n: number }[];
  const m = rows.find((row) => row.key === 'counter')?.n ?? 0;
  const slots = rows.filter((row) => row.key.startsWith('ring-')).map((row) => ({ slot: Number(row.key.slice('ring-'.length)), n: row.n }));
  const held = slots.map((s) => s.n).sort((a, b) => a - b);
  const count = Math.min(RING, m);
  const wanted = Array.from({ length: count }, (_, i) => m - count + 1 + i);
  if (held.join(',') !== wanted.join(',') || slots.some((s) => s.n % RING !== s.slot)) return { m, problem: `half a change: counter ${m}, ring holds ${held.join(',')}` };
  return { m };
}

/**
 * Copies a data dir's database and WAL (the WAL's first `walBytes` only, when given) into `to`, as a kill -9
 * leaves them: the -shm index is left behind, as SQLite rebuilds it from the WAL when the first connection opens.
 */
async function copyAsKillLeftIt(from: string, to: string, walBytes?: number): Promise<string> {
  await mkdir(to, { recursive: true });
  await copyFile(join(from, DATABASE_FILE), join(to, DATABASE_FILE));
  const wal = await readFile(join(from, WAL_FILE));
  await writeFile(join(to, WAL_FILE), walBytes === undefined ? wal : wal.subarray(0, walBytes));
  return to;
}

function describeRange(values: readonly number[]): string {
  return values.length === 0 ? 'none' : `${values.length} from ${values[0]} to ${values.at(-1)}`;
}
