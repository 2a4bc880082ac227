import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { build } from 'esbuild';
import { bundleCrateflow, DEFAULT_BUNDLE } from '../core/build/bundle-crateflow.js';
import type { BenchOptions } from './bench-options.js';
import { median, printTable } from './print-table.js';
import { cpuMs, processTree, residentMb } from './process-memory.js';
import { runWhenMain } from './run-when-main.js';
import { spawnServer } from './spawned-server.js';
import { startScriptNodeFlags } from '../core/build/start-script-node-flags.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = 9;
const QUICK_RUNS = 2;
const IDLE_MS = 2000;
const TARGET_MS = 300;
const TARGET_MB = 60;
/** Issue 17, point 4: the service idle with no data may weigh at most this much more than the stack alone. */
const ABOVE_STACK_TARGET_MB = 8;

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

const STACK_FLOOR = 'the stack alone (bench/stack-floor.ts)';
const BUNDLE = 'bundle as npm start runs it';
const STACK_FLOOR_SOURCE = join(ROOT, 'bench', 'stack-floor.ts');

const variants = (stackFloorBundle: string, startFlags: readonly string[]): readonly Variant[] => [
  { name: 'bare node:http (floor)', args: () => ['-e', BARE_SERVER] },
  { name: STACK_FLOOR, args: () => [stackFloorBundle] },
  { name: 'tsx CLI (.bin/tsx)', args: (config) => [join(ROOT, 'node_modules', '.bin', 'tsx'), '--conditions=crateflow-source', 'core/main.ts', '--config', config] },
  { name: 'node --import tsx', args: (config) => ['--import', 'tsx', '--conditions=crateflow-source', 'core/main.ts', '--config', config] },
  { name: BUNDLE, args: (config) => [...startFlags, DEFAULT_BUNDLE, '--config', config] },
  { name: 'bundle, node defaults', args: (config) => [DEFAULT_BUNDLE, '--config', config] },
  { name: 'bundle, node --optimize-for-size', args: (config) => ['--optimize-for-size', DEFAULT_BUNDLE, '--config', config] },
];

/**
 * Issue 2, point 8: process start to the first `/health` 200, and resident memory after 2 s idle, for a real
 * child process on a fixed free port (PORT env), RUNS times per way of starting it. Beside the bundle that
 * `npm start` runs it measures the sources under tsx (CLI and loader), the bundle with V8's size-over-speed
 * flag, a bare node:http server, and the stack alone (bench/stack-floor.ts) — the floor the targets sit on.
 */
export async function run(options: BenchOptions = { quick: false }): Promise<void> {
  const runs = options.quick ? QUICK_RUNS : RUNS;
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-bench-startup-'));
  try {
    const config = join(dir, 'config.yaml');
    await writeFile(config, configYaml(dir));
    const bundle = await bundleCrateflow();
    const stackFloor = join(dir, 'stack-floor.mjs');
    await bundleStackFloor(stackFloor);
    const rows: (string | number)[][] = [];
    const startFlags = await startScriptNodeFlags();
    const all = variants(stackFloor, startFlags);
    // Rounds take every variant in turn, so a burst of other work on the machine hurts all of them alike.
    const samplesOf = new Map<Variant, Sample[]>(all.map((variant) => [variant, []]));
    for (let i = 0; i < runs; i++) {
      for (const variant of all) samplesOf.get(variant)?.push(await startOnce(variant, config));
    }
    const samplesNamed = (name: string) => [...samplesOf].find(([variant]) => variant.name === name)?.[1] ?? [];
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
      `Startup: spawn to first GET /health 200, ${runs} rounds of every variant; RSS after ${IDLE_MS / 1000} s idle`,
      ['how it starts', 'median ms', 'min ms', 'max ms', 'CPU ms', 'server RSS MB', 'all processes MB'],
      rows,
      [
        idleAboveStack(samplesNamed(STACK_FLOOR), samplesNamed(BUNDLE)),
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

/** Issue 17, point 4: the service's idle RSS with no data beside the stack floor's, as a difference in MB. */
function idleAboveStack(floor: readonly Sample[], service: readonly Sample[]): string {
  const floorMb = median(floor.map((s) => s.serverMb));
  const serviceMb = median(service.map((s) => s.serverMb));
  const above = serviceMb - floorMb;
  return `idle memory, no data: bundle ${serviceMb.toFixed(1)} MB, the stack alone ${floorMb.toFixed(1)} MB: ${above >= 0 ? '+' : ''}${above.toFixed(1)} MB (target ≤ ${ABOVE_STACK_TARGET_MB} MB) ${above <= ABOVE_STACK_TARGET_MB ? 'PASS' : 'MISS'}`;
}

/** One start of a variant: spawn to the first /health 200, its CPU until then, then its memory after IDLE_MS. */
async function startOnce(variant: Variant, config: string): Promise<Sample> {
  const server = await spawnServer({ cwd: ROOT, args: variant.args(config) });
  try {
    const cpu = await Promise.all((await processTree(server.pid)).map(cpuMs));
    await sleep(IDLE_MS);
    const sizes = await Promise.all((await processTree(server.pid)).map(residentMb));
    return { ms: server.msToHealth, cpuMs: cpu.reduce((a, b) => a + b, 0), serverMb: sizes[sizes.length - 1] ?? 0, treeMb: sizes.reduce((a, b) => a + b, 0) };
  } finally {
    await server.stop();
  }
}

runWhenMain(import.meta.url, run);
