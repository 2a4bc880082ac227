import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = fileURLToPath(new URL('../../core/main.ts', import.meta.url));

/**
 * Node arguments that run a TypeScript entry point in this very process. The tsx CLI would run it in a
 * grandchild, so a signal (SIGKILL above all) sent to the child would miss the real server.
 */
export const TS_NODE_ARGS = ['--import', 'tsx', '--conditions=crateflow-source'] as const;

/** Starts `crateflow` as a real child process (the same code `npm start` runs). */
export function spawnService(args: string[], env: NodeJS.ProcessEnv = {}, cwd = REPO_ROOT): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [...TS_NODE_ARGS, MAIN, ...args], {
    cwd,
    env: { ...process.env, CRATEFLOW_CONFIG: '', PORT: '', ...env },
    stdio: 'pipe',
  });
}

/** Runs the service to completion (for commands that exit on their own) and collects its output. */
export async function runService(args: string[], env: NodeJS.ProcessEnv = {}, cwd = REPO_ROOT, input?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnService(args, env, cwd);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  if (input !== undefined) child.stdin.end(input);
  const [code] = await once(child, 'exit');
  return { code: typeof code === 'number' ? code : null, stdout, stderr };
}

/** Waits until the child logs its "listening" line and returns the port it reported. */
// A liveness bound only (issue #27): a start on a loaded machine may take many seconds; a hung one still fails.
export function waitForListening(child: ChildProcessWithoutNullStreams, timeoutMs = 120_000): Promise<{ port: number; lines: string[] }> {
  return new Promise((resolve, reject) => {
    const lines: string[] = [];
    let buffer = '';
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    const timer = setTimeout(() => reject(new Error(`service did not start within ${timeoutMs} ms:\n${lines.join('\n')}`)), timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        lines.push(line);
        const parsed: unknown = safeParse(line);
        if (parsed && typeof parsed === 'object' && 'msg' in parsed && parsed.msg === 'crateflow is listening' && 'port' in parsed && typeof parsed.port === 'number') {
          clearTimeout(timer);
          resolve({ port: parsed.port, lines });
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before listening:\n${lines.join('\n')}\n${errors}`));
    });
  });
}

function safeParse(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined; // not a JSON log line (e.g. a warning printed by Node itself)
  }
}
