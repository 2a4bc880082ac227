import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireWrk } from './require-wrk.js';
import { RESULT_MARKER, THREAD_DONE_MARKER, wrkScript, type WrkReport } from './wrk-script.js';

/** One request of a list that is sent exactly once (e.g. the approval of one queue id). */
export interface ListedRequest {
  path: string;
  body?: string;
}

export interface LoadOptions {
  /** The full URL of a fixed request; with `requests`, the server's base URL (the paths come from the list). */
  url: string;
  connections: number;
  /** Upper bound of the measurement, in seconds (a list usually ends sooner, when every request is answered). */
  seconds: number;
  method?: 'GET' | 'POST';
  /** JSON body of the fixed request. */
  body?: string;
  /** Sent once each, then the run ends; connections and threads are capped at the list's length. */
  requests?: readonly ListedRequest[];
  /** wrk threads (default 2: on a 2-core machine one more would only take CPU from the server). */
  threads?: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  completed: number;
  /** Non-2xx answers plus connection errors and timeouts; a clean run has 0. */
  failures: number;
  seconds: number;
  /**
   * CPU time of this process per 2xx answer, in µs. wrk runs in its own process, so for a server started in this
   * process (the bare server, startApp) this is the server's cost alone; for a spawned server it means nothing.
   */
  cpuMicrosPerRequest: number;
}

const WRK_TIMEOUT = '10s';

/**
 * Drives one server with wrk for at most `seconds` and returns its figures (wrk's percentiles come from its
 * full latency histogram). Throughput counts 2xx answers over the run's real duration, so a list answered in
 * 3 s of a 10 s bound is not diluted by idle seconds.
 */
export async function measureHttp(options: LoadOptions): Promise<LoadResult> {
  requireWrk();
  const listLength = options.requests?.length;
  if (listLength === 0) throw new Error(`measureHttp(${options.url}): the request list is empty`);
  const connections = Math.min(options.connections, listLength ?? options.connections);
  const threads = Math.min(options.threads ?? 2, connections);
  const method = options.method ?? 'GET';
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-wrk-'));
  try {
    const script = join(dir, 'script.lua');
    await writeFile(script, wrkScript({ mode: options.requests ? 'list' : 'fixed', method, ...(options.body === undefined ? {} : { body: options.body }) }));
    const scriptArgs: string[] = [];
    if (options.requests) {
      const list = join(dir, 'requests.tsv');
      await writeFile(list, options.requests.map((r) => `${r.path}\t${r.body ?? ''}\n`).join(''));
      scriptArgs.push('--', list, String(threads));
    }
    const args = [
      '-t', String(threads), '-c', String(connections), '-d', `${Math.max(1, Math.round(options.seconds))}s`, '--timeout', WRK_TIMEOUT,
      ...(method === 'POST' ? ['-H', 'Content-Type: application/json'] : []),
      '-s', script, options.url, ...scriptArgs,
    ];
    const cpuBefore = process.cpuUsage();
    const report = await runWrk(args, threads, options.url);
    const cpu = process.cpuUsage(cpuBefore);
    const seconds = report.durationUs / 1e6;
    return {
      requestsPerSecond: Math.round(report.ok / Math.max(seconds, 1e-6)),
      p50Ms: Math.round(report.p50Us / 10) / 100,
      p99Ms: Math.round(report.p99Us / 10) / 100,
      completed: report.ok,
      failures: report.answered - report.ok + report.errors,
      seconds: Math.round(seconds * 100) / 100,
      cpuMicrosPerRequest: Math.round((cpu.user + cpu.system) / Math.max(report.ok, 1)),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs wrk, stops it with SIGINT once every thread has answered its share of a list, and parses done()'s JSON. */
function runWrk(args: readonly string[], threads: number, url: string): Promise<WrkReport> {
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let stopping = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const threadsDone = stdout.split('\n').filter((line) => line === THREAD_DONE_MARKER).length;
      if (!stopping && threadsDone >= threads) {
        stopping = true;
        child.kill('SIGINT');
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', (err) => reject(new Error(`wrk could not run against ${url}`, { cause: err })));
    child.once('close', (code, signal) => {
      const line = stdout.split('\n').find((l) => l.startsWith(RESULT_MARKER));
      if (!line) {
        reject(new Error(`wrk against ${url} ended (${code ?? signal}) without a result:\n${stderr}${stdout}`));
        return;
      }
      resolve(parseReport(line.slice(RESULT_MARKER.length)));
    });
  });
}

function parseReport(json: string): WrkReport {
  const value: unknown = JSON.parse(json);
  const number = (key: keyof WrkReport): number => {
    const field: unknown = value && typeof value === 'object' && key in value ? Reflect.get(value, key) : undefined;
    if (typeof field !== 'number') throw new Error(`wrk's report lacks a number "${key}": ${json}`);
    return field;
  };
  return { ok: number('ok'), answered: number('answered'), durationUs: number('durationUs'), p50Us: number('p50Us'), p99Us: number('p99Us'), errors: number('errors') };
}
