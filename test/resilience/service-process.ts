import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { REPO_ROOT, TS_NODE_ARGS } from '../helpers/run-service.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/resilience/', import.meta.url));
/** The real entry point (core/main.ts) behind a parent-death guard. Arguments: `--config PATH`. */
export const SERVICE_CHILD = `${FIXTURES}service-child.ts`;
/** The service on a scaled clock. Arguments: `<config.yaml> <factor> <epoch-ms>`. */
export const FAST_CLOCK_SERVER = `${FIXTURES}fast-clock-server.ts`;

const OUTPUT_TAIL_CHARS = 16_000;

/** A service running as a child process on a known port. */
export interface ServiceProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly pid: number;
  readonly port: number;
  readonly baseUrl: string;
  /** Resolves when the process has exited, with how. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The last few KiB of stdout and stderr, for failure messages. */
  output(): string;
  /** kill -9, then waits for the exit. */
  kill9(): Promise<void>;
  /** SIGTERM (graceful), then waits for the exit; SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface StartOptions {
  /** Script to run (SERVICE_CHILD or FAST_CLOCK_SERVER) and its arguments. */
  script: string;
  args: readonly string[];
  /** The port the config makes the service listen on (readiness is GET /health there). */
  port: number;
  host?: string;
  env?: NodeJS.ProcessEnv;
  /** Extra node flags (e.g. --expose-gc). */
  nodeArgs?: readonly string[];
  readyTimeoutMs?: number;
}

/** Children started by this module and not yet exited, so an `after()` hook can kill whatever a failed test left. */
const running = new Set<ServiceProcess>();

/**
 * Starts a service child (`node --import tsx …`, never the tsx CLI, so a signal reaches the server itself) and
 * waits until GET /health answers. Its output is drained continuously (a full pipe would stall the service).
 */
export async function startServiceProcess(options: StartOptions): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...TS_NODE_ARGS, options.script, ...options.args], {
    cwd: REPO_ROOT,
    env: { ...process.env, CRATEFLOW_CONFIG: '', PORT: '', ...options.env },
    stdio: 'pipe',
  });
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const host = options.host ?? '127.0.0.1';
  const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${options.port}`;
  const service: ServiceProcess = {
    child,
    pid: child.pid ?? -1,
    port: options.port,
    baseUrl,
    exited,
    output: () => tail,
    async kill9() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop(graceMs = 15_000) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
  running.add(service);
  void exited.then(() => running.delete(service));
  try {
    await waitForHealth(service, options.readyTimeoutMs ?? 60_000);
  } catch (err: unknown) {
    await service.kill9();
    throw err;
  }
  return service;
}

/** Kills (-9) every service child this module started that is still running. For `after()` hooks. */
export async function killAllServiceProcesses(): Promise<void> {
  await Promise.all([...running].map((service) => service.kill9()));
}

async function waitForHealth(service: ServiceProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let gone = false;
  void service.exited.then(() => (gone = true));
  for (;;) {
    if (gone) throw new Error(`service exited before it was ready:\n${service.output()}`);
    try {
      const res = await fetch(`${service.baseUrl}/health`, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200 || res.status === 503) return;
    } catch (err: unknown) {
      // Not listening yet (ECONNREFUSED) or too slow to answer: poll again until the deadline.
      if (Date.now() > deadline) throw new Error(`service not ready within ${timeoutMs} ms (${String(err)}):\n${service.output()}`, { cause: err });
    }
    if (Date.now() > deadline) throw new Error(`service not ready within ${timeoutMs} ms:\n${service.output()}`);
    await sleep(40);
  }
}

/** A TCP port that was free a moment ago (listen on 0, read it, close). */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

/** Resident memory of a process in MiB (VmRSS from /proc/<pid>/status). */
export async function residentMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!match?.[1]) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(match[1]) / 1024;
}

/** Runs the service child with `config` until it exits by itself (a start that must be refused); its output. */
export async function runServiceToExit(config: string, timeoutMs = 60_000): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [...TS_NODE_ARGS, SERVICE_CHILD, '--config', config], { cwd: REPO_ROOT, env: { ...process.env, CRATEFLOW_CONFIG: '', PORT: '' } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  return { code, output };
}
