import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** A reverse proxy started by a test; `stop()` ends exactly this process. */
export interface ProxyProcess {
  readonly output: () => string;
  stop(): Promise<void>;
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = address && typeof address === 'object' ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Starts a long-running command, keeping its output for failure messages. */
export function startProcess(command: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): ProxyProcess {
  let output = '';
  const child: ChildProcess = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    output: () => `${command} ${args.join(' ')} (exit ${child.exitCode ?? 'pending'}):\n${output.slice(-4000)}`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Calls `probe` until it returns true, failing with `describe()` after `timeoutMs`. */
export async function waitFor(probe: () => Promise<boolean>, timeoutMs: number, describe: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      if (await probe()) return;
    } catch (err: unknown) {
      // Not listening yet (connection refused, TLS not ready): keep the error for the message and try again.
      last = err;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not ready within ${timeoutMs} ms (${last instanceof Error ? last.message : 'no error'})\n${describe()}`);
}
