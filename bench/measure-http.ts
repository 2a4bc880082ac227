import autocannon from 'autocannon';

export interface LoadOptions {
  url: string;
  connections: number;
  /** Upper bound of the measurement, in seconds (the suite keeps each one ≤ 10 s). */
  seconds: number;
  method?: 'GET' | 'POST';
  /** Called for every request; returns the path to ask for (e.g. the next queue id to approve). */
  nextPath?: () => string;
  /** Stop after this many requests, even before `seconds` are up. */
  amount?: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  completed: number;
  /** Non-2xx answers plus connection errors and timeouts; a clean run has 0. */
  failures: number;
  seconds: number;
  /** CPU time of this process per 2xx answer, in µs: server and load generator together, as both run here. */
  cpuMicrosPerRequest: number;
}

/**
 * Runs autocannon in this process for at most `seconds`. Throughput counts 2xx answers over the run's real
 * duration, so a run cut short by `amount` is not diluted by idle seconds.
 */
export function measureHttp(options: LoadOptions): Promise<LoadResult> {
  const { nextPath } = options;
  return new Promise((resolve, reject) => {
    const cpuBefore = process.cpuUsage();
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        ...(options.amount === undefined ? { duration: options.seconds } : { amount: options.amount }),
        method: options.method ?? 'GET',
        ...(nextPath ? { requests: [{ setupRequest: (request) => ({ ...request, path: nextPath() }) }] } : {}),
      },
      (err: unknown, result) => {
        clearTimeout(deadline);
        if (err) {
          reject(new Error(`autocannon failed against ${options.url}`, { cause: err }));
          return;
        }
        const cpu = process.cpuUsage(cpuBefore);
        resolve({
          requestsPerSecond: Math.round(result['2xx'] / result.duration),
          p50Ms: result.latency.p50,
          p99Ms: result.latency.p99,
          completed: result['2xx'],
          failures: result.non2xx + result.errors + result.timeouts,
          seconds: Math.round(result.duration * 10) / 10,
          cpuMicrosPerRequest: Math.round((cpu.user + cpu.system) / Math.max(result['2xx'], 1)),
        });
      },
    );
    // `amount` overrides autocannon's duration; this keeps such a run inside its time bound too.
    const deadline = setTimeout(() => instance.stop(), options.seconds * 1000);
  });
}
