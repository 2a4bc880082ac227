import type { BenchOptions } from './bench-options.js';
import { createLogger } from '../core/logging/create-logger.js';
import { startApp } from '../test/helpers/start-app.js';
import { startBareJsonServer } from './bare-json-server.js';
import type { LoadResult } from './measure-http.js';
import { measureSideBySide } from './measure-side-by-side.js';
import { percent, printTable } from './print-table.js';
import { runWhenMain } from './run-when-main.js';

const CONNECTIONS = 32;
const FULL = { warmUpSeconds: 2, seconds: 8, rounds: 4 };
const QUICK = { warmUpSeconds: 1, seconds: 2, rounds: 2 };
const TARGET = 0.5;

/**
 * `/health` throughput of Crateflow beside a bare node:http server answering the same JSON body, in the same
 * process and run, with the same connections and duration (issue 2, point 8: at least half of the bare server).
 */
export async function run(options: BenchOptions = { quick: false }): Promise<void> {
  const { warmUpSeconds, seconds, rounds } = options.quick ? QUICK : FULL;
  const app = await startApp({ log: createLogger('warn'), validateResponses: false });
  const body: unknown = await (await fetch(`${app.baseUrl}/health`)).json();
  const bare = await startBareJsonServer(() => body);
  try {
    const [bareResult, appResult] = await measureSideBySide({
      urls: [`${bare.url}/health`, `${app.baseUrl}/health`],
      connections: CONNECTIONS,
      seconds,
      rounds,
      warmUpSeconds,
    });
    if (!bareResult || !appResult) throw new Error('expected one result per server');
    const row = (name: string, r: LoadResult) => [name, r.requestsPerSecond, r.p50Ms, r.p99Ms, r.cpuMicrosPerRequest, r.failures];
    const ratio = appResult.requestsPerSecond / bareResult.requestsPerSecond;
    printTable(
      `GET /health, ${CONNECTIONS} connections, ${seconds} s each in ${rounds} alternating rounds`,
      ['server', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'failures'],
      [row('bare node:http', bareResult), row('crateflow', appResult)],
      [`crateflow / bare: ${percent(appResult.requestsPerSecond, bareResult.requestsPerSecond)} (target ≥ ${percent(TARGET, 1)}) ${ratio >= TARGET ? 'PASS' : 'MISS'}`],
    );
  } finally {
    await bare.close();
    await app.close();
  }
}

runWhenMain(import.meta.url, run);
