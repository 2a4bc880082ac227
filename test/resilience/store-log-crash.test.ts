import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { JsonDocument } from '../../core/storage/json-document.js';
import { REPO_ROOT, TS_NODE_ARGS } from '../helpers/run-service.js';
import { isRecord } from './json-fields.js';
import { between, runSeed, seededRandom } from './seeded-random.js';
import { ms, printReport } from './statistics.js';

// Issue 10, part 2, at the level of one stored document: a small writer process (test/fixtures/resilience/
// compacting-writer.ts) commits mutations that each set two records, compacting the change log into the snapshot
// as often as a test asks, and is killed with kill -9 at random moments. After every kill the document must read
// as the state after one whole mutation, with every acknowledged one in it. The kills through the real service
// are in store-crash-consistency.test.ts.

const COMPACTION_RUNS = 100;
const TORN_RUNS = 40;
const RING = 16;
const COMPACTING_WRITER = fileURLToPath(new URL('../fixtures/resilience/compacting-writer.ts', import.meta.url));

describe('store change log under kill -9', () => {
  it(`keeps every mutation whole across ${COMPACTION_RUNS} kill -9 while the store compacts on nearly every commit`, async (t) => {
    await killWriterRepeatedly(t, { runs: COMPACTION_RUNS, compactAfterBytes: 1, fillerBytes: 0, title: 'snapshot on every other commit, small records' });
  });

  it('opens a change log that holds nothing but a torn line, and keeps later appends readable', async (t) => {
    // What a kill -9 in the middle of the first append after a compaction leaves behind (the random kills above
    // reach it only now and then).
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-torn-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'pairs.json');
    await writeFile(`${file}.changes`, '{"set":[["ring","1",{"n":1,"filler":"ffff');
    const first = await JsonDocument.open<{ ring: Record<string, { n: number }> }>(file, () => ({ ring: {} }));
    first.data.ring['2'] = { n: 2 };
    first.touch('ring', '2');
    await first.commit(); // acknowledged
    const reread = await JsonDocument.peek(file);
    assert.deepEqual(reread, { ring: { 2: { n: 2 } } }, 'the acknowledged change reads back after a restart');
    await first.close();
  });

  it(`keeps every mutation whole across ${TORN_RUNS} kill -9 that tear large appends to the change log`, async (t) => {
    await killWriterRepeatedly(t, { runs: TORN_RUNS, compactAfterBytes: 32 * 1024 * 1024, fillerBytes: 256 * 1024, title: '1 MiB appends, snapshot every ~32 appends' });
  });
});

interface WriterRuns {
  runs: number;
  compactAfterBytes: number;
  fillerBytes: number;
  title: string;
}

/**
 * Starts the compacting writer on one file again and again, kills it -9 at a random moment each time, and reads
 * the file as a restart would (snapshot plus change log, JsonDocument.peek). The state must be that after some
 * mutation m — counter m, ring slots holding m-15..m — with m at least the highest acknowledged n.
 */
async function killWriterRepeatedly(t: { after: (fn: () => Promise<void>) => void }, options: WriterRuns): Promise<void> {
  const seed = runSeed();
  const random = seededRandom(seed);
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-compaction-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'pairs.json');
  let acked = 0;
  let highest = 0;
  let torn = 0;
  const violations: string[] = [];
  const started = Date.now();
  for (let run = 0; run < options.runs && violations.length === 0; run++) {
    const args = [...TS_NODE_ARGS, COMPACTING_WRITER, file, String(options.compactAfterBytes), String(options.fillerBytes)];
    const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: 'pipe' });
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
      violations.push(`run ${run}: the store no longer opens: ${errors.split('\n').find((l) => l.includes('Error')) ?? errors.slice(0, 300)}`);
      break;
    }
    await sleep(between(random, 5, 150));
    child.kill('SIGKILL');
    await exited;
    for (const match of out.matchAll(/^ack (\d+)$/gm)) acked = Math.max(acked, Number(match[1]));
    const changes = await readFile(`${file}.changes`, 'utf8').catch(() => '');
    if (changes.length > 0 && !changes.endsWith('\n')) torn++;
    const data = await JsonDocument.peek(file).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
    if (data instanceof Error) {
      violations.push(`run ${run}: the store does not read: ${data.message}`);
      break;
    }
    const counter = isRecord(data) && isRecord(data.counter) && isRecord(data.counter.value) ? Number(data.counter.value.n) : 0;
    const slots = isRecord(data) && isRecord(data.ring) ? Object.entries(data.ring).map(([slot, value]) => ({ slot: Number(slot), n: isRecord(value) ? Number(value.n) : -1 })) : [];
    const held = slots.map((s) => s.n).sort((a, b) => a - b);
    const count = Math.min(RING, counter);
    const wanted = Array.from({ length: count }, (_, i) => counter - count + 1 + i);
    if (counter < acked) violations.push(`run ${run}: acknowledged ${acked} but the counter reads ${counter}`);
    if (held.join(',') !== wanted.join(',') || slots.some((s) => s.n % RING !== s.slot)) {
      violations.push(`run ${run}: half a mutation: counter ${counter}, ring holds ${held.join(',')}`);
    }
    highest = Math.max(highest, counter);
  }
  printReport(`store under kill -9 — ${options.title}`, [
    ['seed', `${seed}`],
    ['sizing', `${options.runs} kills of a small writer process: under a minute on 2 cores`],
    ['setup', `one document; each mutation sets two records; compaction past ${options.compactAfterBytes} bytes of log; ${options.fillerBytes} bytes of filler per record`],
    ['kills', `${options.runs} (uniform 5–150 ms after the writer was ready); ${torn} left a torn last line in the change log`],
    ['mutations', `${highest} committed in all, ${acked} acknowledged before the last kill`],
    ['violations', violations.length === 0 ? 'none' : violations.join(' | ')],
    ['wall time', ms(Date.now() - started)],
  ]);
  assert.deepEqual(violations, [], 'the document always reads as the state after one whole mutation, with every acknowledged one');
}
