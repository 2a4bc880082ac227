import { measureHttp, type LoadResult } from './measure-http.js';
import { median } from './print-table.js';

export interface SideBySideOptions {
  /** Full URLs, one per server, measured in this order in every round. */
  urls: readonly string[];
  connections: number;
  /** Total measured seconds per server, split into `rounds`. */
  seconds: number;
  rounds: number;
  warmUpSeconds: number;
}

/**
 * Measures several servers in alternating short rounds instead of one long run each, so a burst of other work
 * on the machine hurts all of them alike rather than whichever ran at that moment. Throughput is over all
 * rounds; p50/p99 are the median of the rounds' values (wrk reports percentiles, not its histogram, so rounds cannot be merged).
 */
export async function measureSideBySide(options: SideBySideOptions): Promise<LoadResult[]> {
  const { urls, connections } = options;
  for (const url of urls) await measureHttp({ url, connections, seconds: options.warmUpSeconds });
  const rounds: LoadResult[][] = urls.map(() => []);
  for (let round = 0; round < options.rounds; round++) {
    for (const [i, url] of urls.entries()) {
      rounds[i]?.push(await measureHttp({ url, connections, seconds: options.seconds / options.rounds }));
    }
  }
  return rounds.map((results) => {
    const completed = results.reduce((sum, r) => sum + r.completed, 0);
    const seconds = results.reduce((sum, r) => sum + r.seconds, 0);
    return {
      requestsPerSecond: Math.round(completed / seconds),
      p50Ms: median(results.map((r) => r.p50Ms)),
      p99Ms: median(results.map((r) => r.p99Ms)),
      completed,
      failures: results.reduce((sum, r) => sum + r.failures, 0),
      seconds: Math.round(seconds * 10) / 10,
      cpuMicrosPerRequest: Math.round(results.reduce((sum, r) => sum + r.cpuMicrosPerRequest * r.completed, 0) / Math.max(completed, 1)),
    };
  });
}
