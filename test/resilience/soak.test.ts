import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdir, mkdtemp, rm, stat, writeFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { Pool } from 'undici';
import { isRecord, numberAt, recordsAt, stringAt } from './json-fields.js';
import { between, pick, runSeed, seededRandom } from './seeded-random.js';
import { SERVICE_CHILD, freePort, killAllServiceProcesses, residentMiB, startServiceProcess } from './service-process.js';
import { writeServiceConfig } from './write-service-config.js';
import { ms, percentile, printReport, slope } from './statistics.js';

// Issue 10, part 6: soak. A real service process takes a steady, open-loop mix of reads, additions, approvals,
// rejections, wishlist removals, library syncs and webhook tests for SOAK_MINUTES (default 10), while its
// webhooks deliver every event to a receiver that fails now and then (so retries run too) and downloads
// complete through the blackhole. Every 10 s the service collects garbage and reports its heap; resident
// memory is read from /proc/<pid>/status. The test fails if the heap keeps growing over the second half
// (least-squares slope), if resident memory peaks higher at the end than at the start, or if p99 latency drifts
// upward (last third against the first).
//
// Sizing (CI: 2 cores, whole suite ≤ 30 min): SOAK_MINUTES (default 10) plus ~15 s; the rate (40 requests/s)
// uses well under one core, so the figures measure the service, not a saturated machine.

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const RATE_PER_SECOND = 40;
const SAMPLE_EVERY_MS = 10_000;
const MAX_IN_FLIGHT = 64;
// Memory: before each sample the service runs a full garbage collection (it is started with --expose-gc and
// collects on SIGUSR2, see the service-child fixture), so RSS and the heap still in use measure what is kept,
// not how lazily V8 collects. The data stays bounded by the mix (new candidates ~1/s, decided and removed at
// the same pace), so what little memory data explains is far below the limits; a leak of ~200 bytes per
// request at 40 requests/s is 0.5 MiB/min and fails.
const MAX_HEAP_SLOPE_MIB_PER_MIN = 0.5;
// RSS is a sawtooth: it creeps up and then drops by 10–40 MiB when V8 hands pages back, so a slope over any window
// depends on where the drops fall (runs here gave 0.2 to 2.8 MiB/min for the same service). What grows when native
// memory leaks is the peaks: the last third's highest sample may exceed the first third's by at most this (the
// data the mix keeps explains a few MiB). The first third holds the start-up peak, so this is a coarse guard
// against native leaks of ~4 MiB/min (as the slope limit it replaces was); the heap check above is the fine one.
const MAX_RSS_PEAK_GROWTH_MIB = 16;
const P99_DRIFT_FACTOR = 2;
const P99_DRIFT_FLOOR_MS = 25;

after(async () => {
  await killAllServiceProcesses();
});

interface Sample {
  atMs: number;
  rssMiB: number;
  heapMiB: number;
}

describe('soak: steady mixed load', () => {
  it(`keeps memory flat and latency steady over ${MINUTES} min of mixed load at ${RATE_PER_SECOND} requests/s`, { timeout: (MINUTES + 5) * 60_000 }, async (t) => {
    const seed = runSeed();
    const random = seededRandom(seed);
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-soak-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    let deliveries = 0;
    const receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        deliveries++;
        res.writeHead(random() < 0.1 ? 503 : 204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
    const address = receiver.address();
    assert.ok(address && typeof address === 'object');

    const completeDir = join(dir, 'complete');
    const musicDir = join(dir, 'music');
    for (let i = 0; i < 50; i++) {
      await mkdir(join(musicDir, `Owned Artist ${i}`, `Owned Album ${i}`), { recursive: true });
      await writeFile(join(musicDir, `Owned Artist ${i}`, `Owned Album ${i}`, '01.flac'), 'x');
    }
    const port = await freePort();
    const configPath = await writeServiceConfig(dir, port, {
      download_client: { complete_dir: completeDir, quiet_period_ms: 500, poll_interval: '2s', max_active: 10 },
      library: { path: musicDir, sync_interval: '1m' },
      webhooks: [
        { name: 'soak-all', url: `http://127.0.0.1:${address.port}/all`, secret: 'soak-secret', events: ['queue_added', 'queue_approved', 'queue_rejected', 'download_completed', 'wishlist_removed'], timeout_ms: 2000, retry: 2 },
        { name: 'soak-decisions', url: `http://127.0.0.1:${address.port}/decisions`, events: ['queue_approved', 'queue_rejected'], retry: 1 },
      ],
    });
    const service = await startServiceProcess({ script: SERVICE_CHILD, args: ['--config', configPath], port, nodeArgs: ['--expose-gc'] });
    let heapLine: ((bytes: number) => void) | undefined;
    let buffered = '';
    service.child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        const match = /^\{"heap_after_gc":(\d+)/.exec(line);
        if (match) heapLine?.(Number(match[1]));
      }
    });
    /** Full GC in the service, then the heap in use and the RSS the kernel reports. */
    const measure = async (): Promise<{ heapMiB: number; rssMiB: number }> => {
      const heap = new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the service did not report its heap within 5 s')), 5000);
        heapLine = (bytes) => {
          clearTimeout(timer);
          resolve(bytes);
        };
      });
      service.child.kill('SIGUSR2');
      const heapMiB = (await heap) / 1024 / 1024;
      return { heapMiB, rssMiB: await residentMiB(service.pid) };
    };
    const pool = new Pool(service.baseUrl, { connections: 16, keepAliveTimeout: 10_000 });
    t.after(() => pool.close());

    const pending: string[] = [];
    const wished: string[] = [];
    const latencies: { at: number; ms: number; kind: string }[] = [];
    const counts = new Map<string, number>();
    const errors: string[] = [];
    let candidate = 0;
    let inFlight = 0;
    let skipped = 0;

    const call = async (kind: string, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<unknown> => {
      const begin = performance.now();
      const res = await pool.request({ method, path, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? null : JSON.stringify(body) });
      const text = await res.body.text();
      latencies.push({ at: Date.now(), ms: performance.now() - begin, kind });
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
      if (res.statusCode >= 500 || (res.statusCode >= 400 && res.statusCode !== 404 && res.statusCode !== 409)) errors.push(`${kind} ${method} ${path}: ${res.statusCode} ${text.slice(0, 200)}`);
      return text && res.headers['content-type']?.toString().includes('json') ? JSON.parse(text) : undefined;
    };

    /** One request of the mix: mostly reads, then the writes that make events and deliveries. */
    const oneRequest = async (): Promise<void> => {
      const roll = random();
      if (roll < 0.8) {
        const path = pick(random, [
          `/api/v1/queue/pending?limit=${between(random, 10, 100)}&sort=${pick(random, ['added_at', 'score', 'artist', 'year'])}`,
          `/api/v1/queue/pending?q=${encodeURIComponent(pick(random, ['soak', 'artist 1', 'album']))}`,
          '/api/v1/wishlist?limit=50', '/api/v1/downloads', '/api/v1/stats', '/api/v1/jobs', '/api/v1/library?limit=20',
          '/api/v1/webhooks/deliveries?limit=20', '/api/v1/webhooks', '/api/v1/plugins', '/health', '/api/v1/auth/info',
        ]);
        await call('read', 'GET', path);
      } else if (roll < 0.88) {
        // Mostly candidates already known (answered as duplicates, nothing stored), a new one about once a second.
        const fresh = random() < 0.3 || candidate === 0;
        const n = fresh ? candidate++ : between(random, 0, candidate - 1);
        const body = await call('add', 'POST', '/api/v1/queue', [{ artist: `Soak Artist ${n}`, album: `Soak Album ${n}`, score: between(random, 0, 100), year: between(random, 1960, 2025), source: 'soak' }]);
        if (isRecord(body)) for (const item of recordsAt(body, 'items')) pending.push(stringAt(item, 'id') ?? '');
      } else if (roll < 0.93 && pending.length === 0) {
        await call('read', 'GET', '/api/v1/queue/pending?limit=10');
      } else if (roll < 0.93) {
        const id = pending.splice(between(random, 0, pending.length - 1), 1)[0] ?? '';
        const decision = random() < 0.7 ? 'approve' : 'reject';
        await call(decision, 'POST', `/api/v1/queue/${id}/${decision}`);
      } else if (roll < 0.94 && pending.length > 3) {
        const ids = pending.splice(0, between(random, 2, 4));
        await call('approve', 'POST', '/api/v1/queue/approve', { ids });
      } else if (roll < 0.965) {
        // Removals keep the wishlist the size it is: downloaded items first, else the oldest wanted ones.
        if (wished.length === 0) {
          for (const status of ['downloaded', 'wanted']) {
            const page = await call('read', 'GET', `/api/v1/wishlist?status=${status}&limit=20`);
            if (isRecord(page)) for (const item of recordsAt(page, 'items')) wished.push(stringAt(item, 'id') ?? '');
            if (wished.length > 0) break;
          }
        }
        const id = wished.shift();
        if (id) await call('remove', 'DELETE', `/api/v1/wishlist/${id}`);
      } else if (roll < 0.975) {
        await call('sync', 'POST', '/api/v1/library/sync');
      } else {
        await call('webhook-test', 'POST', '/api/v1/webhooks/test', { name: 'soak-all', dry_run: true });
      }
    };

    /** Finishes requested downloads the way a download tool would: a folder with a file in complete_dir. */
    const completeDownloads = async (): Promise<void> => {
      const page = await call('read', 'GET', '/api/v1/downloads?status=queued&limit=20');
      if (!isRecord(page)) return;
      for (const item of recordsAt(page, 'items')) {
        const folder = join(completeDir, stringAt(item, 'artist') ?? 'x', stringAt(item, 'album') ?? 'x');
        await mkdir(folder, { recursive: true });
        await writeFile(join(folder, '01.flac'), 'audio');
      }
    };

    const samples: Sample[] = [];
    const started = Date.now();
    const durationMs = MINUTES * 60_000;
    const sampler = (async () => {
      for (let next = started; Date.now() - started <= durationMs; next += SAMPLE_EVERY_MS) {
        samples.push({ atMs: Date.now() - started, ...(await measure()) });
        await sleep(Math.max(0, next + SAMPLE_EVERY_MS - Date.now()));
      }
    })();
    const completer = (async () => {
      while (Date.now() - started < durationMs) {
        await completeDownloads().catch((err: unknown) => errors.push(`completing downloads: ${String(err)}`));
        await sleep(5000);
      }
    })();
    // Open loop: requests start on schedule whatever the answers do, so slow answers show up as latency.
    const tickMs = 1000 / RATE_PER_SECOND;
    const running = new Set<Promise<void>>();
    for (let n = 0; Date.now() - started < durationMs; n++) {
      const due = started + n * tickMs;
      if (due > Date.now()) await sleep(due - Date.now());
      if (inFlight >= MAX_IN_FLIGHT) {
        skipped++;
        continue;
      }
      inFlight++;
      const request = oneRequest()
        .catch((err: unknown) => void errors.push(`request failed: ${String(err)}`))
        .finally(() => {
          inFlight--;
          running.delete(request);
        });
      running.add(request);
    }
    await Promise.all([...running]);
    await Promise.all([sampler, completer]);
    const alive = service.child.exitCode === null;

    // Let the outbox drain (retries run on the real 2–4 s schedule), then read the service's own view.
    let pendingDeliveries = -1;
    for (const until = Date.now() + 20_000; Date.now() < until; await sleep(500)) {
      const page = await call('read', 'GET', '/api/v1/webhooks/deliveries?status=pending&limit=1');
      pendingDeliveries = numberAt(page, 'total');
      if (pendingDeliveries === 0) break;
    }
    const stats = await call('read', 'GET', '/api/v1/stats');
    const dataDir = join(dir, 'data');
    const files = await readdir(dataDir);
    const sizes = await Promise.all(files.map(async (file) => `${file} ${((await stat(join(dataDir, file))).size / 1024).toFixed(0)} KiB`));
    const stopped = await service.stop();

    // Figures.
    const secondHalf = (points: Sample[]) => points.filter((p) => p.atMs >= durationMs / 2);
    const perMinute = (points: Sample[], value: (p: Sample) => number) => slope(points.map((p) => ({ x: p.atMs / 60_000, y: value(p) })));
    const heapSlope = perMinute(secondHalf(samples), (p) => p.heapMiB);
    const third = durationMs / 3;
    const window = (from: number, to: number) => latencies.filter((l) => l.at - started >= from && l.at - started < to).map((l) => l.ms);
    const firstThird = window(0, third);
    const lastThird = window(2 * third, durationMs + 1);
    const p99First = percentile(firstThird, 99);
    const p99Last = percentile(lastThird, 99);
    const rss = samples.map((s) => s.rssMiB);
    const peakIn = (from: number, to: number) => Math.max(...samples.filter((p) => p.atMs >= from && p.atMs < to).map((p) => p.rssMiB));
    const rssPeakFirst = peakIn(0, third);
    const rssPeakLast = peakIn(2 * third, durationMs + SAMPLE_EVERY_MS);
    printReport(`soak — ${MINUTES} min at ${RATE_PER_SECOND} requests/s`, [
      ['seed', `${seed}`],
      ['sizing', `${MINUTES} min (SOAK_MINUTES overrides; 10 by default, the biggest share of the suite's 30 min) at ${RATE_PER_SECOND} requests/s, under half a core`],
      ['requests', `${latencies.length} answered (${[...counts.entries()].map(([k, n]) => `${k} ${n}`).join(', ')}); ${skipped} not sent (over ${MAX_IN_FLIGHT} in flight); ${errors.length} errors`],
      ['events → webhook requests', `${deliveries} received by the receiver (10% answered 503, retried); pending at the end: ${pendingDeliveries}`],
      ['RSS samples (MiB)', rss.map((v) => v.toFixed(0)).join(' ')],
      ['heap after GC (MiB)', samples.map((p) => p.heapMiB.toFixed(1)).join(' ')],
      ['RSS', `start ${rss[0]?.toFixed(1)} MiB, end ${rss.at(-1)?.toFixed(1)} MiB, max ${Math.max(...rss).toFixed(1)} MiB; peak first third ${rssPeakFirst.toFixed(1)} MiB, last third ${rssPeakLast.toFixed(1)} MiB (limit +${MAX_RSS_PEAK_GROWTH_MIB}); slope whole run ${perMinute(samples, (p) => p.rssMiB).toFixed(2)} MiB/min (for information: a sawtooth)`],
      ['heap after GC', `start ${samples[0]?.heapMiB.toFixed(1)} MiB, end ${samples.at(-1)?.heapMiB.toFixed(1)} MiB; slope second half ${heapSlope.toFixed(2)} MiB/min (limit ${MAX_HEAP_SLOPE_MIB_PER_MIN})`],
      ['latency first third', `p50 ${ms(percentile(firstThird, 50))}, p99 ${ms(p99First)}, max ${ms(Math.max(...firstThird))} (${firstThird.length} requests)`],
      ['latency last third', `p50 ${ms(percentile(lastThird, 50))}, p99 ${ms(p99Last)}, max ${ms(Math.max(...lastThird))} (${lastThird.length} requests); limit p99 ≤ ${P99_DRIFT_FACTOR}× first + ${P99_DRIFT_FLOOR_MS} ms`],
      ['store at the end', `${isRecord(stats) ? JSON.stringify(stats).slice(0, 200) : '?'}; files: ${sizes.join(', ')}`],
      ['service', `${alive ? 'alive' : 'DIED'} to the end, SIGTERM exit ${stopped.code}`],
      ['errors', errors.length === 0 ? 'none' : errors.slice(0, 5).join(' | ')],
    ]);

    assert.ok(alive, `the service stayed up:\n${service.output()}`);
    assert.deepEqual(errors.slice(0, 10), [], 'no request failed');
    assert.ok(samples.length >= Math.floor(durationMs / SAMPLE_EVERY_MS), 'memory was sampled every 10 s');
    assert.ok(heapSlope <= MAX_HEAP_SLOPE_MIB_PER_MIN, `the heap keeps growing: ${heapSlope.toFixed(2)} MiB/min after GC over the second half`);
    assert.ok(rssPeakLast - rssPeakFirst <= MAX_RSS_PEAK_GROWTH_MIB, `resident memory keeps growing: its peak rose from ${rssPeakFirst.toFixed(1)} to ${rssPeakLast.toFixed(1)} MiB`);
    assert.ok(p99Last <= P99_DRIFT_FACTOR * p99First + P99_DRIFT_FLOOR_MS, `p99 latency drifted from ${ms(p99First)} to ${ms(p99Last)}`);
    assert.equal(pendingDeliveries, 0, 'every webhook delivery was made');
    assert.equal(stopped.code, 0);
  });
});
