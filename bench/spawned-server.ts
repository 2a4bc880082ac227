import { spawn, type ChildProcess } from 'node:child_process';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

const READY_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5000;

/** A server started as a child process on its own port, answering GET /health with 200. */
export interface SpawnedServer {
  child: ChildProcess;
  pid: number;
  port: number;
  baseUrl: string;
  /** Spawn to the first /health 200, in ms. */
  msToHealth: number;
  /** SIGTERM, then SIGKILL if it has not exited within `stopTimeoutMs`; resolves with the exit code (null after a signal). */
  stop(): Promise<number | null>;
}

export interface SpawnOptions {
  cwd: string;
  /** Node's arguments (a script and its own arguments). The port is given in the PORT environment variable. */
  args: readonly string[];
  readyTimeoutMs?: number;
  /** How long stop() waits after SIGTERM before SIGKILL (default 5 s; a big store takes longer to fold its log). */
  stopTimeoutMs?: number;
}

/**
 * Spawns `node ...args` on a free port (PORT env) and waits for GET /health to answer 200. A port taken between
 * finding it free and the child binding it is retried on another.
 */
export async function spawnServer(options: SpawnOptions, attempt = 1): Promise<SpawnedServer> {
  try {
    return await spawnOnPort(options, await freePort());
  } catch (err: unknown) {
    if (attempt < 3 && err instanceof Error && err.message.includes('EADDRINUSE')) return spawnServer(options, attempt + 1);
    throw err;
  }
}

async function spawnOnPort(options: SpawnOptions, port: number): Promise<SpawnedServer> {
  const started = performance.now();
  const child = spawn(process.execPath, options.args, { cwd: options.cwd, env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const stop = () => stopProcess(child, options.stopTimeoutMs ?? STOP_TIMEOUT_MS);
  try {
    await waitForHealth(port, child, () => stderr, options.readyTimeoutMs ?? READY_TIMEOUT_MS);
  } catch (err: unknown) {
    await stop();
    throw err;
  }
  return { child, pid: child.pid ?? 0, port, baseUrl: `http://127.0.0.1:${port}`, msToHealth: performance.now() - started, stop };
}

/** Asks the OS for a free port, then releases it for the child to take (port 0 would not be reportable). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (address && typeof address === 'object' ? resolvePort(address.port) : reject(new Error('no TCP address'))));
    });
  });
}

async function waitForHealth(port: number, child: ChildProcess, stderr: () => string, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode} before answering /health:\n${stderr()}`);
    if ((await healthStatus(port)) === 200) return;
    await sleep(2);
  }
  throw new Error(`no /health 200 on port ${port} within ${timeoutMs} ms:\n${stderr()}`);
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

/** SIGTERM (tsx's CLI passes it on to the server), then SIGKILL if it has not exited within `timeoutMs`. */
async function stopProcess(child: ChildProcess, timeoutMs: number): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await exited;
  clearTimeout(killer);
  return code;
}
