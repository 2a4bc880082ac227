import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { bundleCrateflow, DEFAULT_BUNDLE } from '../core/build/bundle-crateflow.js';
import type { BenchOptions } from './bench-options.js';
import { fillQueue } from './fill-queue.js';
import { freePort } from './spawned-server.js';
import { printTable } from './print-table.js';
import { runWhenMain } from './run-when-main.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// fillQueue decides nine in ten of what it adds: these leave 1,000 (100 with --quick) pending items to approve.
const FULL = { items: 10_000, connections: [1, 32] };
const QUICK = { items: 1000, connections: [1, 32] };

/**
 * Issue #29 point 2: how many fsync/fdatasync calls an approval costs with one webhook configured, counted by strace
 * on the service process (the bundle `npm start` runs) over the approvals alone: the approval's commit, the hand-off
 * to the download client, the webhook's delivery record and its acknowledgement, all of them. One at a time, and 32
 * at once, where group commit shares a commit between the approvals waiting together.
 */
export async function run(options: BenchOptions = { quick: false }): Promise<void> {
  const scale = options.quick ? QUICK : FULL;
  await bundleCrateflow();
  const rows: (string | number)[][] = [];
  for (const connections of scale.connections) rows.push(await measure(scale.items, connections));
  printTable(`Durable writes per approval with one webhook (strace; load average ${loadavg()[0]?.toFixed(1) ?? '?'})`, ['connections', 'approvals', 'fsync + fdatasync', 'per approval', 'approvals/s'], rows);
}

async function measure(items: number, connections: number): Promise<(string | number)[]> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-fsync-bench-'));
  let delivered = 0;
  const receiver = createServer((req, res) => {
    req.resume().on('end', () => {
      delivered++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  if (!address || typeof address === 'string') throw new Error('receiver: expected a TCP address');
  const port = await freePort();
  const config = join(dir, 'config.yaml');
  await writeFile(config, configYaml(dir, `http://127.0.0.1:${address.port}/hook`));
  const trace = join(dir, 'strace.log');
  const child = spawn('strace', ['-f', '-ttt', '-e', 'trace=fsync,fdatasync', '-o', trace, process.execPath, DEFAULT_BUNDLE, '--config', config], {
    cwd: ROOT, env: { ...process.env, PORT: String(port) }, stdio: 'ignore',
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(base);
    const { pending } = await fillQueue(base, items);
    await waitForQuiet(trace);
    const started = Date.now() / 1000;
    const ids = pending.map((item) => item.id);
    const startedAt = performance.now();
    await Promise.all(Array.from({ length: connections }, async () => {
      for (let id = ids.pop(); id !== undefined; id = ids.pop()) {
        const res = await fetch(`${base}/api/v1/queue/${id}/approve`, { method: 'POST' });
        if (res.status !== 200) throw new Error(`approve answered ${res.status}: ${await res.text()}`);
      }
    }));
    const seconds = (performance.now() - startedAt) / 1000;
    // The deliveries and acknowledgements that follow the approvals belong to their cost.
    while (delivered < pending.length) await sleep(50);
    await waitForQuiet(trace);
    const calls = (await readFile(trace, 'utf8')).split('\n').filter((line) => /\bf(data)?sync\(/.test(line) && Number(line.split(/\s+/)[1]) >= started).length;
    return [connections, pending.length, calls, (calls / pending.length).toFixed(2), Math.round(pending.length / seconds)];
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    receiver.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function waitForHealth(base: string): Promise<void> {
  for (let tries = 0; tries < 600; tries++) {
    if ((await fetch(`${base}/health`).catch(() => undefined))?.ok) return;
    await sleep(100);
  }
  throw new Error(`no /health from ${base} within 60 s`);
}

/** Waits until the trace has not grown for a second: the writes of what came before are over. */
async function waitForQuiet(trace: string): Promise<void> {
  let last = -1;
  for (;;) {
    const size = (await readFile(trace, 'utf8').catch(() => '')).length;
    if (size === last) return;
    last = size;
    await sleep(1500);
  }
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
