import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { build } from 'esbuild';
import { bundleCrateflow, DEFAULT_BUNDLE } from '../core/build/bundle-crateflow.js';
import { median, printTable } from './print-table.js';
import { runWhenMain } from './run-when-main.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = 9;
const IDLE_MS = 2000;
const READY_TIMEOUT_MS = 10_000;
const TARGET_MS = 300;
const TARGET_MB = 60;

interface Variant {
  name: string;
  args: (configPath: string) => string[];
}

interface Sample {
  ms: number;
  /** CPU time (user + system, all threads) the process tree used until the first 200: robust to a busy machine. */
  cpuMs: number;
  /** VmRSS of the process that serves HTTP, in MB. */
  serverMb: number;
  /** VmRSS of the whole process tree we started (tsx's CLI runs the server in a second node process). */
  treeMb: number;
}

// A floor for comparison: the least any node HTTP service can do.
const BARE_SERVER = `require('node:http').createServer((q, s) => { s.setHeader('content-type', 'application/json'); s.end('{"status":"ok"}'); }).listen(+process.env.PORT, '127.0.0.1');`;

const STACK_FLOOR_SOURCE = join(ROOT, 'bench', 'stack-floor.ts');

const variants = (stackFloorBundle: string): readonly Variant[] => [
  { name: 'bare node:http (floor)', args: () => ['-e', BARE_SERVER] },
  { name: 'the stack alone (bench/stack-floor.ts)', args: () => [stackFloorBundle] },
  { name: 'tsx CLI (.bin/tsx)', args: (config) => [join(ROOT, 'node_modules', '.bin', 'tsx'), '--conditions=crateflow-source', 'core/main.ts', '--config', config] },
  { name: 'node --import tsx', args: (config) => ['--import', 'tsx', '--conditions=crateflow-source', 'core/main.ts', '--config', config] },
  { name: 'bundle (dist/crateflow.mjs)', args: (config) => [DEFAULT_BUNDLE, '--config', config] },
  { name: 'bundle, node --optimize-for-size', args: (config) => ['--optimize-for-size', DEFAULT_BUNDLE, '--config', config] },
];

/**
 * Issue 2, point 8: process start to the first `/health` 200, and resident memory after 2 s idle, for a real
 * child process on a fixed free port (PORT env), RUNS times per way of starting it. Beside the bundle that
 * `npm start` runs it measures the sources under tsx (CLI and loader), the bundle with V8's size-over-speed
 * flag, a bare node:http server, and the stack alone (bench/stack-floor.ts) — the floor the targets sit on.
 */
export async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-bench-startup-'));
  try {
    const config = join(dir, 'config.yaml');
    await writeFile(config, configYaml(dir));
    const bundle = await bundleCrateflow();
    const stackFloor = join(dir, 'stack-floor.mjs');
    await bundleStackFloor(stackFloor);
    const rows: (string | number)[][] = [];
    const all = variants(stackFloor);
    // Rounds take every variant in turn, so a burst of other work on the machine hurts all of them alike.
    const samplesOf = new Map<Variant, Sample[]>(all.map((variant) => [variant, []]));
    for (let i = 0; i < RUNS; i++) {
      for (const variant of all) samplesOf.get(variant)?.push(await startOnce(variant, config));
    }
    for (const variant of all) {
      const samples = samplesOf.get(variant) ?? [];
      const ms = samples.map((s) => s.ms);
      const mark = (ok: boolean) => (variant === all[0] || variant === all[1] ? '' : ok ? ' ✓' : ' ✗');
      rows.push([
        variant.name,
        `${Math.round(median(ms))}${mark(median(ms) < TARGET_MS)}`,
        Math.round(Math.min(...ms)),
        Math.round(Math.max(...ms)),
        Math.round(median(samples.map((s) => s.cpuMs))),
        median(samples.map((s) => s.serverMb)).toFixed(1),
        `${median(samples.map((s) => s.treeMb)).toFixed(1)}${mark(median(samples.map((s) => s.treeMb)) < TARGET_MB)}`,
      ]);
    }
    printTable(
      `Startup: spawn to first GET /health 200, ${RUNS} rounds of every variant; RSS after ${IDLE_MS / 1000} s idle`,
      ['how it starts', 'median ms', 'min ms', 'max ms', 'CPU ms', 'server RSS MB', 'all processes MB'],
      rows,
      [
        `targets: < ${TARGET_MS} ms and < ${TARGET_MB} MB (all processes); reference service: ~600 ms, 113 MB`,
        'CPU ms: user + system time of the started process tree up to the first 200 (median); unlike wall time, other load barely changes it',
        `npm start runs: ${await startScript()}`,
        `bundle built by esbuild in ${bundle.ms} ms, ${(bundle.bytes / 1024 / 1024).toFixed(1)} MiB (core + sdk + all workspace plugins + node_modules)`,
        'the stack alone: koa, @koa/router, pino, ajv + formats, typebox, yaml, tsyringe loaded and used once, one /health route, bundled the same way',
        '--optimize-for-size trades ~12% of request throughput for a smaller heap (README: small machines)',
      ],
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Bundles bench/stack-floor.ts as `npm run build` bundles the service (ESM, node20, whitespace minified). */
async function bundleStackFloor(outfile: string): Promise<void> {
  await build({
    entryPoints: [STACK_FLOOR_SOURCE],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    minifyWhitespace: true,
    minifySyntax: true,
    keepNames: true,
    banner: { js: "import { createRequire as __floorRequire } from 'node:module'; const require = __floorRequire(import.meta.url);" },
    logLevel: 'error',
  });
}

async function startScript(): Promise<string> {
  const manifest: unknown = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
  const scripts = manifest && typeof manifest === 'object' && 'scripts' in manifest ? manifest.scripts : undefined;
  const start = scripts && typeof scripts === 'object' && 'start' in scripts ? scripts.start : undefined;
  return typeof start === 'string' ? start : '(no start script)';
}

function configYaml(dir: string): string {
  return [
    'server:',
    '  host: 127.0.0.1',
    'storage:',
    `  dir: ${JSON.stringify(join(dir, 'data'))}`,
    'download_client:',
    '  type: blackhole',
    `  requests_dir: ${JSON.stringify(join(dir, 'requests'))}`,
    `  complete_dir: ${JSON.stringify(join(dir, 'complete'))}`,
    'library:',
    '  type: filesystem',
    `  path: ${JSON.stringify(join(dir, 'music'))}`,
    '',
  ].join('\n');
}

/** One start; a port taken between finding it free and the child binding it is retried on another. */
async function startOnce(variant: Variant, config: string, attempt = 1): Promise<Sample> {
  try {
    return await startOnPort(variant, config, await freePort());
  } catch (err: unknown) {
    if (attempt < 3 && err instanceof Error && err.message.includes('EADDRINUSE')) return startOnce(variant, config, attempt + 1);
    throw err;
  }
}

async function startOnPort(variant: Variant, config: string, port: number): Promise<Sample> {
  const started = performance.now();
  const child = spawn(process.execPath, variant.args(config), { cwd: ROOT, env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    await waitForHealth(port, child, () => stderr);
    const ms = performance.now() - started;
    const cpu = await Promise.all((await processTree(child.pid ?? 0)).map(cpuMs));
    await sleep(IDLE_MS);
    const sizes = await Promise.all((await processTree(child.pid ?? 0)).map(residentMb));
    return { ms, cpuMs: cpu.reduce((a, b) => a + b, 0), serverMb: sizes[sizes.length - 1] ?? 0, treeMb: sizes.reduce((a, b) => a + b, 0) };
  } finally {
    await stop(child);
  }
}

/** Asks the OS for a free port, then releases it for the child to take (port 0 would not be reportable). */
function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (address && typeof address === 'object' ? resolvePort(address.port) : reject(new Error('no TCP address'))));
    });
  });
}

async function waitForHealth(port: number, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = performance.now() + READY_TIMEOUT_MS;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode} before answering /health:\n${stderr()}`);
    if ((await healthStatus(port)) === 200) return;
    await sleep(2);
  }
  throw new Error(`no /health 200 on port ${port} within ${READY_TIMEOUT_MS} ms:\n${stderr()}`);
}

/** The status of one GET /health, or 0 while nothing listens yet. */
function healthStatus(port: number): Promise<number> {
  return new Promise((resolveStatus) => {
    const req = get({ host: '127.0.0.1', port, path: '/health', agent: false }, (res) => {
      res.resume();
      resolveStatus(res.statusCode ?? 0);
    });
    // Refused or reset: the server is not up yet, which is what we are polling for.
    req.on('error', () => resolveStatus(0));
  });
}

/** The pid and its descendants, parents first (Linux: /proc/<pid>/task/<pid>/children). */
async function processTree(pid: number): Promise<number[]> {
  const text = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8');
  const children = text.split(/\s+/).filter(Boolean).map(Number);
  const below = await Promise.all(children.map(processTree));
  return [pid, ...below.flat()];
}

/** utime + stime of a process (all its threads), from /proc/<pid>/stat, in ms (Linux clock ticks are 10 ms). */
async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name start at field 3 (state); utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function residentMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  if (!kb) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(kb) / 1024;
}

/** SIGTERM (tsx's CLI passes it on to the server), then SIGKILL if it has not exited within 5 s. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(killer);
}

runWhenMain(import.meta.url, run);
