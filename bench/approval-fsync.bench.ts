import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { bundleCrateflow, DEFAULT_BUNDLE } from '../core/build/bundle-crateflow.js';
import type { BenchOptions } from './bench-options.js';
import { fillDataDir } from './fill-data-dir.js';
import { freePort } from './spawned-server.js';
import { printTable } from './print-table.js';
import { processTree } from './process-memory.js';
import { runWhenMain } from './run-when-main.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// A year of use (fill-queue.ts, `decided`) leaves one item in ten pending: 1,000 (100 with --quick) to approve.
const FULL = { items: 10_000, connections: [1, 32] };
const QUICK = { items: 1000, connections: [1, 32] };
/** Issue #29: durable writes (fdatasync, or fsync) an approval may cost with one webhook configured. */
const TARGET_SYNCS_PER_APPROVAL = 1.5;
const READY_TIMEOUT_MS = 60_000;
const DELIVERY_TIMEOUT_MS = 120_000;
const QUIET_MS = 1500;
const QUIET_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;

/**
 * Issue #29 point 2: how many fsync/fdatasync calls an approval costs with one webhook configured, counted by strace
 * on the service process (the bundle `npm start` runs) over the approvals alone: the approval's commit, the hand-off
 * to the download client, the webhook's delivery record and its acknowledgement, all of them. One at a time, and 32
 * at once, where group commit shares a commit between the approvals waiting together. Each round has its own data
 * dir, filled through the service's tables while it is stopped, and its own service under strace.
 */
export async function run(options: BenchOptions = { quick: false }): Promise<void> {
  const scale = options.quick ? QUICK : FULL;
  await bundleCrateflow();
  const rounds: Round[] = [];
  for (const connections of scale.connections) rounds.push(await measure(scale.items, connections));
  const files = [...new Set(rounds.flatMap((round) => [...round.byFile.keys()]))].sort();
  printTable(
    `Durable writes per approval with one webhook (strace -f on the service; load average ${loadavg()[0]?.toFixed(1) ?? '?'})`,
    ['connections', 'approvals', 'approvals/s', 'fsync', 'fdatasync', 'syncs per approval'],
    rounds.map((round) => {
      const perApproval = (round.fsync + round.fdatasync) / round.approvals;
      return [round.connections, round.approvals, round.perSecond, round.fsync, round.fdatasync, `${perApproval.toFixed(2)}${perApproval <= TARGET_SYNCS_PER_APPROVAL ? '' : ' MISS'}`];
    }),
    [
      `target: ≤ ${TARGET_SYNCS_PER_APPROVAL} per approval. The issue counts fdatasync, the old engine's call; SQLite syncs its WAL with fsync in this build, so both count`,
      'counted from the first approval until every webhook delivery has arrived and the service has been quiet for 1.5 s; by file:',
      ...files.map((file) => `  ${file}: ${rounds.map((round) => `${round.byFile.get(file) ?? 0} at c=${round.connections}`).join(', ')}`),
    ],
  );
}

interface Round {
  connections: number;
  approvals: number;
  perSecond: number;
  fsync: number;
  fdatasync: number;
  /** Calls per file the service synced (a data dir path shortened to its name in the dir). */
  byFile: Map<string, number>;
}

async function measure(items: number, connections: number): Promise<Round> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-fsync-bench-'));
  let delivered = 0;
  const receiver = createServer((req, res) => {
    req.resume().on('end', () => {
      delivered++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolveListening) => receiver.listen(0, '127.0.0.1', resolveListening));
  let traced: TracedService | undefined;
  try {
    const address = receiver.address();
    if (!address || typeof address === 'string') throw new Error('receiver: expected a TCP address');
    const dataDir = join(dir, 'data');
    const { pending } = await fillDataDir(dataDir, items, 'decided');
    await mkdir(join(dir, 'music'), { recursive: true });
    const config = join(dir, 'config.yaml');
    await writeFile(config, configYaml(dir, `http://127.0.0.1:${address.port}/hook`));
    const trace = join(dir, 'strace.log');
    const service = await startTraced(config, trace);
    traced = service;
    await waitForQuiet(trace);
    const started = Date.now() / 1000;
    const ids = pending.map((item) => item.id);
    const startedAt = performance.now();
    await Promise.all(Array.from({ length: connections }, async () => {
      for (let id = ids.pop(); id !== undefined; id = ids.pop()) {
        const res = await fetch(`${service.base}/api/v1/queue/${id}/approve`, { method: 'POST' });
        if (res.status !== 200) throw new Error(`approve answered ${res.status}: ${await res.text()}`);
      }
    }));
    const seconds = (performance.now() - startedAt) / 1000;
    // The deliveries and acknowledgements that follow the approvals belong to their cost.
    const deadline = performance.now() + DELIVERY_TIMEOUT_MS;
    while (delivered < pending.length) {
      if (performance.now() > deadline) throw new Error(`${delivered} of ${pending.length} webhook deliveries arrived within ${DELIVERY_TIMEOUT_MS / 1000} s`);
      await sleep(50);
    }
    await waitForQuiet(trace);
    const calls = syncCalls(await readFile(trace, 'utf8'), started, { [dataDir]: '<data>', [dir]: '<bench dir>' });
    return { connections, approvals: pending.length, perSecond: Math.round(pending.length / seconds), ...calls };
  } finally {
    await traced?.stop();
    receiver.closeAllConnections();
    await new Promise((resolveClosed) => receiver.close(resolveClosed));
    await rm(dir, { recursive: true, force: true });
  }
}

interface TracedService {
  base: string;
  /** SIGTERM to the service (strace ignores it while it runs a program), then waits for strace to end with it. */
  stop(): Promise<void>;
}

/**
 * The service under `strace -f`, on a free port, once its /health answers 200. strace runs node itself: ptrace may
 * attach to its own children only, in a container. With a program to run and `-o`, strace ignores SIGTERM, SIGINT
 * and SIGHUP, so the service is stopped by signalling node, and strace ends when its tracee does.
 */
async function startTraced(config: string, trace: string): Promise<TracedService> {
  const port = await freePort();
  const strace = spawn('strace', ['-f', '--seccomp-bpf', '-ttt', '-y', '-e', 'trace=fsync,fdatasync', '-o', trace, process.execPath, DEFAULT_BUNDLE, '--config', config], {
    cwd: ROOT, env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  strace.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolveExit) => strace.once('exit', () => resolveExit()));
  const stop = async () => {
    if (strace.exitCode !== null || strace.signalCode !== null) return;
    for (const pid of (await processTree(strace.pid ?? 0).catch(() => [])).slice(1)) process.kill(pid, 'SIGTERM');
    const killer = setTimeout(() => strace.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(killer);
  };
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(base, strace, () => stderr);
  } catch (err: unknown) {
    await stop();
    throw err;
  }
  return { base, stop };
}

async function waitForHealth(base: string, strace: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = performance.now() + READY_TIMEOUT_MS;
  while (performance.now() < deadline) {
    if (strace.exitCode !== null) throw new Error(`strace (or the service under it) exited with ${strace.exitCode} before /health answered:\n${stderr()}`);
    if ((await fetch(`${base}/health`).catch(() => undefined))?.ok) return;
    await sleep(100);
  }
  throw new Error(`no /health from ${base} within ${READY_TIMEOUT_MS / 1000} s:\n${stderr()}`);
}

/** Waits until the trace has not grown for QUIET_MS: the writes of what came before are over. */
async function waitForQuiet(trace: string): Promise<void> {
  const deadline = performance.now() + QUIET_TIMEOUT_MS;
  let last = -1;
  while (performance.now() < deadline) {
    const size = (await readFile(trace, 'utf8').catch(() => '')).length;
    if (size === last) return;
    last = size;
    await sleep(QUIET_MS);
  }
  throw new Error(`the service kept syncing files for ${QUIET_TIMEOUT_MS / 1000} s without a pause`);
}

/**
 * The fsync and fdatasync calls strace logged at or after `since` (epoch s), by kind and by file (paths shortened by
 * `shortNames`). A line reads
 * `pid 1712345678.123456 fdatasync(21</path/to/crateflow.db-wal>) = 0`; a call split by another thread's is logged
 * as `fdatasync(21</…> <unfinished ...>` and later `<... fdatasync resumed>`, counted once by its first half.
 */
function syncCalls(log: string, since: number, shortNames: Record<string, string>): { fsync: number; fdatasync: number; byFile: Map<string, number> } {
  const counts = { fsync: 0, fdatasync: 0, byFile: new Map<string, number>() };
  for (const line of log.split('\n')) {
    const match = /^\d+\s+(\d+\.\d+)\s+(fsync|fdatasync)\(\d+<([^>]*)>/.exec(line);
    if (!match || Number(match[1]) < since) continue;
    const kind = match[2] === 'fsync' ? 'fsync' : 'fdatasync';
    counts[kind]++;
    // Longest paths first: the data dir lies inside the bench's dir.
    const path = Object.entries(shortNames).sort(([a], [b]) => b.length - a.length).reduce((text, [long, short]) => text.replace(long, short), match[3] ?? '?');
    const file = `${kind} ${path}`;
    counts.byFile.set(file, (counts.byFile.get(file) ?? 0) + 1);
  }
  return counts;
}

function configYaml(dir: string, webhook: string): string {
  return [
    'server:',
    '  host: 127.0.0.1',
    'storage:',
    `  dir: ${JSON.stringify(join(dir, 'data'))}`,
    'log:',
    '  level: warn',
    'download_client:',
    '  type: blackhole',
    '  poll_interval: 1h',
    `  requests_dir: ${JSON.stringify(join(dir, 'requests'))}`,
    `  complete_dir: ${JSON.stringify(join(dir, 'complete'))}`,
    'library:',
    '  type: filesystem',
    '  sync_interval: 1d',
    `  path: ${JSON.stringify(join(dir, 'music'))}`,
    'webhooks:',
    '  - name: chat',
    `    url: ${JSON.stringify(webhook)}`,
    '    events: [queue_approved]',
    '',
  ].join('\n');
}

runWhenMain(import.meta.url, run);
