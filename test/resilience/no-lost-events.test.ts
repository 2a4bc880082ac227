import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { startFaultInjectingReceiver, type FaultInjectingReceiver, type FaultPlan } from './fault-injecting-receiver.js';
import { fetchJson, numberAt, postJson, recordsAt, stringAt } from './json-fields.js';
import { between, runSeed, seededRandom } from './seeded-random.js';
import { FAST_CLOCK_SERVER, SERVICE_CHILD, freePort, killAllServiceProcesses, startServiceProcess, type ServiceProcess } from './service-process.js';
import { writeServiceConfig } from './write-service-config.js';
import { ms, percentile, printReport } from './statistics.js';

// Issue 10, part 1: no event is lost under faults. Candidates go in through POST /api/v1/queue (each one fires
// queue_added), fanned out to three signed webhooks (retry: 5) whose receivers fail at random, while the service
// is killed with kill -9 and restarted on the same port and data dir. At the end every receiver must have
// acknowledged (answered 2xx to) every queued item's event, counted by X-Webhook-Delivery and by data.id.
//
// Sizing (CI: 2 cores, the whole resilience suite ≤ 30 min): the big run, 10,000 events × 3 webhooks on a 20×
// clock (retries after 0.1, 0.2, 0.4, 0.8, 1.6 s), takes about 2–4 min; the run on the real 2–32 s schedule,
// 300 events × 3 webhooks with one kill -9, about 1 min.

const SECRETS = ['first-secret-for-resilience', 'second-secret-for-resilience', 'third-secret-for-resilience'] as const;

interface FanOutOptions {
  title: string;
  events: number;
  batchSize: number;
  /** 1: the real service (core/main.ts) on the real clock; > 1: the fast-clock fixture. */
  clockFactor: number;
  kills: number;
  timeoutMs: number;
  plan: FaultPlan;
  /** How long the whole run may take before it fails with what is missing. */
  deadlineMs: number;
  /** What the run costs, for the report (the whole suite must finish in 30 min on 2 cores). */
  sizing: string;
}

interface Batch {
  index: number;
  candidates: { artist: string; album: string; source: string }[];
  firstSentAt: number;
  answeredAt: number | undefined;
  sends: number;
}

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  await killAllServiceProcesses();
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('no lost events: queue_added fanned out to 3 failing webhooks across kill -9 restarts', () => {
  it('delivers 10,000 events to every receiver at least once on a 20× clock while the service is killed 3 times', async () => {
    await runFanOut({
      title: 'no lost events — 10,000 events × 3 webhooks, 20× clock, 3 × kill -9',
      events: 10_000,
      batchSize: 100,
      clockFactor: 20,
      kills: 3,
      timeoutMs: 1500,
      plan: { serverError: 0.3, reset: 0.04, slow: 0.01, slowMs: 2000, maxFailuresPerDelivery: 4 },
      deadlineMs: 9 * 60_000,
      sizing: 'about 1 min on 2 cores (fails after 9 min); the suite budget is 30 min',
    });
  });

  it('delivers 300 events to every receiver at least once on the real 2–32 s retry schedule across a kill -9', async () => {
    await runFanOut({
      title: 'no lost events — 300 events × 3 webhooks, real 2–32 s schedule, 1 × kill -9',
      events: 300,
      batchSize: 25,
      clockFactor: 1,
      kills: 1,
      timeoutMs: 1000,
      plan: { serverError: 0.3, reset: 0.04, slow: 0.03, slowMs: 1500, maxFailuresPerDelivery: 4 },
      deadlineMs: 3 * 60_000,
      sizing: 'about 40 s: at most 4 failures × 2+4+8+16 s of backoff, plus one restart (fails after 3 min)',
    });
  });
});

async function runFanOut(options: FanOutOptions): Promise<void> {
  const seed = runSeed();
  const random = seededRandom(seed);
  const started = Date.now();
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-no-lost-events-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const receivers: FaultInjectingReceiver[] = [];
  for (const [index, secret] of SECRETS.entries()) {
    const receiver = await startFaultInjectingReceiver(`hook-${index + 1}`, secret, options.plan, seededRandom(seed + index + 1));
    receivers.push(receiver);
    cleanups.push(() => receiver.close());
  }
  const port = await freePort();
  const configPath = await writeServiceConfig(dir, port, {
    server: { shutdown_timeout_ms: 2000 },
    log: { level: 'error' },
    webhooks: receivers.map((receiver, index) => ({
      name: receiver.name,
      url: receiver.url,
      secret: SECRETS[index],
      events: ['queue_added'],
      timeout_ms: options.timeoutMs,
      retry: 5,
    })),
  });
  const epoch = Date.now();
  const start = () =>
    options.clockFactor === 1
      ? startServiceProcess({ script: SERVICE_CHILD, args: ['--config', configPath], port })
      : startServiceProcess({ script: FAST_CLOCK_SERVER, args: [configPath, String(options.clockFactor), String(epoch)], port });

  let service: ServiceProcess = await start();
  const kills: { at: number; phase: string; restartMs: number; acked: string }[] = [];
  const killAndRestart = async (phase: string) => {
    const at = Date.now();
    const acked = receivers.map((r) => r.ackedEvents.size).join('/');
    await service.kill9();
    const restarting = Date.now();
    service = await start();
    kills.push({ at: at - started, phase, restartMs: Date.now() - restarting, acked });
  };

  // The batches: every candidate is unique (artist and album carry its number).
  const batches: Batch[] = [];
  for (let b = 0; b * options.batchSize < options.events; b++) {
    const candidates = [];
    for (let i = b * options.batchSize; i < Math.min(options.events, (b + 1) * options.batchSize); i++) {
      candidates.push({ artist: `Resilience Artist ${i}`, album: `Fan-out Album ${i}`, source: 'resilience' });
    }
    batches.push({ index: b, candidates, firstSentAt: 0, answeredAt: undefined, sends: 0 });
  }

  // Kill plan: one kill while candidates are still being posted, one just after, the rest during delivery.
  const killAtBatch = Math.floor(batches.length * (0.25 + random() * 0.2));
  const deliveryKillShares = Array.from({ length: Math.max(0, options.kills - 2) }, (_, i) => 0.45 + (i + random()) * (0.4 / Math.max(1, options.kills - 2)));
  let posted = 0;
  let killing: Promise<void> = Promise.resolve();
  const killsDone = () => kills.length;

  const post = async (batch: Batch): Promise<void> => {
    batch.firstSentAt = Date.now();
    for (;;) {
      if (Date.now() - started > options.deadlineMs) throw new Error(`batch ${batch.index} could not be posted before the deadline`);
      batch.sends++;
      try {
        const { status, body } = await postJson(`${service.baseUrl}/api/v1/queue`, batch.candidates);
        assert.equal(status, 201, `POST /api/v1/queue answered ${status}: ${JSON.stringify(body)?.slice(0, 300)}`);
        batch.answeredAt = Date.now();
        return;
      } catch (err: unknown) {
        if (err instanceof assert.AssertionError) throw err;
        // The service is down (killed, restarting): this batch may or may not be stored. Send it again once the
        // service is back; candidates already queued come back as duplicates and fire no second event.
        await sleep(100);
      }
    }
  };

  const poster = (async () => {
    const queue = [...batches];
    const workers = Array.from({ length: 2 }, async () => {
      for (let batch = queue.shift(); batch; batch = queue.shift()) {
        await post(batch);
        posted++;
        if (posted === killAtBatch && options.kills >= 1) killing = killAndRestart(`while posting (${posted}/${batches.length} batches answered)`);
      }
    });
    await Promise.all(workers);
  })();
  await poster;
  await killing;
  if (options.kills >= 2) {
    await sleep(between(random, 200, 1500));
    await killAndRestart('just after the last batch was answered');
  }

  // Every item in the queue is an event that must reach every receiver.
  const expected = await listQueuedIds(service);
  assert.equal(expected.size, options.events, `expected ${options.events} queued items (each candidate once), found ${expected.size}`);

  const minShare = () => Math.min(...receivers.map((r) => r.ackedEvents.size)) / expected.size;
  for (const share of deliveryKillShares) {
    while (minShare() < share && Date.now() - started < options.deadlineMs) await sleep(50);
    await killAndRestart(`during delivery (${Math.round(minShare() * 100)}% acknowledged by the slowest receiver)`);
  }
  assert.equal(killsDone(), options.kills, 'every planned kill -9 happened');

  const allAcked = () => receivers.every((r) => [...expected.keys()].every((id) => r.ackedEvents.has(id)));
  while (!allAcked() && Date.now() - started < options.deadlineMs) await sleep(200);
  const complete = allAcked();
  const missing = receivers.map((r) => `${r.name}: ${[...expected.keys()].filter((id) => !r.ackedEvents.has(id)).length}`);
  const deliveredAt = Date.now();

  // The service agrees: nothing pending, nothing given up.
  const deliveryTotal = async (status: string) => numberAt((await fetchJson(`${service.baseUrl}/api/v1/webhooks/deliveries?status=${status}&limit=1`)).body, 'total');
  let pending = await deliveryTotal('pending');
  for (const until = Date.now() + 15_000; pending > 0 && Date.now() < until; pending = await deliveryTotal('pending')) await sleep(200);
  const failed = await deliveryTotal('failed');
  const health = await fetch(`${service.baseUrl}/health`);
  await health.arrayBuffer();
  const stop = await service.stop();

  // Figures.
  const createdAt = new Map<string, number>();
  const byCandidate = new Map<string, Batch>();
  for (const batch of batches) for (const c of batch.candidates) byCandidate.set(c.artist, batch);
  for (const [id, artist] of expected) createdAt.set(id, byCandidate.get(artist)?.firstSentAt ?? started);
  const delays: number[] = [];
  let duplicates = 0;
  let afterAck = 0;
  for (const receiver of receivers) {
    for (const [id, at] of receiver.ackedEvents) delays.push(at - (createdAt.get(id) ?? at));
    for (const seen of receiver.deliveries.values()) {
      duplicates += Math.max(0, seen.acks - 1);
      afterAck += seen.requestsAfterAck;
    }
  }
  const violations = receivers.flatMap((r) => r.violations);
  const foreign = receivers.flatMap((r) => [...r.ackedEvents.keys()].filter((id) => !expected.has(id)).map((id) => `${r.name}:${id}`));
  const deliveryIdsPerReceiver = receivers.map((r) => r.deliveries.size);
  printReport(options.title, [
    ['seed', `${seed} (RESILIENCE_SEED=${seed} replays the faults)`],
    ['sizing', options.sizing],
    ['events (queue_added)', `${expected.size} in ${batches.length} POST batches of ${options.batchSize} (${batches.reduce((s, b) => s + b.sends, 0)} sends)`],
    ['clock', options.clockFactor === 1 ? 'real (core/main.ts): retries after 2, 4, 8, 16, 32 s' : `${options.clockFactor}× (retries after ${[2, 4, 8, 16, 32].map((s) => `${(s / options.clockFactor).toFixed(2)}`).join(', ')} s)`],
    ['fault plan', `${options.plan.serverError * 100}% 5xx, ${options.plan.reset * 100}% reset, ${options.plan.slow * 100}% slow (${options.plan.slowMs} ms > timeout_ms ${options.timeoutMs}); ≤ ${options.plan.maxFailuresPerDelivery} failures per delivery (retry: 5)`],
    ...kills.map((k, i): [string, string] => [`kill -9 (${i + 1})`, `at ${ms(k.at)}, ${k.phase}; acked then ${k.acked}; back in ${ms(k.restartMs)}`]),
    ...receivers.map((r): [string, string] => [
      r.name,
      `${r.counts.requests} requests: ${r.counts.acks} × 2xx, ${r.counts.serverErrors} × 5xx, ${r.counts.resets} resets, ${r.counts.slow} slow; ${r.ackedEvents.size}/${expected.size} events acknowledged`,
    ]),
    ['delivery ids per receiver', deliveryIdsPerReceiver.join(' / ')],
    ['duplicates (2xx beyond the first)', `${duplicates}; ${afterAck} requests in all arrived after a delivery's first 2xx`],
    ['delay, posted → acknowledged', `p50 ${ms(percentile(delays, 50))}, p99 ${ms(percentile(delays, 99))}, longest ${ms(Math.max(...delays))}`],
    ['service after the run', `pending ${pending}, failed ${failed}, /health ${health.status}, SIGTERM exit ${stop.code ?? stop.signal}`],
    ['contract violations', violations.length === 0 ? 'none' : violations.slice(0, 5).join('; ')],
    ['wall time', `${ms(deliveredAt - started)} to full delivery, ${ms(Date.now() - started)} in all`],
  ]);

  assert.ok(complete, `some events were never acknowledged within ${ms(options.deadlineMs)} (missing per receiver: ${missing.join(', ')}); seed ${seed}`);
  assert.deepEqual(violations, [], 'every request carried a valid signature and a stable delivery id and body');
  assert.deepEqual(foreign, [], 'receivers only saw events of queued items');
  for (const receiver of receivers) {
    assert.equal(receiver.deliveries.size, expected.size, `${receiver.name} saw exactly one delivery id per event`);
  }
  assert.equal(pending, 0, 'no delivery is left pending');
  assert.equal(failed, 0, 'no delivery was given up');
  assert.equal(health.status, 200);
  assert.equal(stop.code, 0, `the service stops cleanly on SIGTERM:\n${service.output()}`);
}

/** Every queued item's id → its artist, read page by page from GET /api/v1/queue/pending. */
async function listQueuedIds(service: ServiceProcess): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (let offset = 0; ; offset += 500) {
    const { status, body } = await fetchJson(`${service.baseUrl}/api/v1/queue/pending?limit=500&offset=${offset}&sort=added_at&order=asc`);
    assert.equal(status, 200);
    for (const item of recordsAt(body, 'items')) {
      const id = stringAt(item, 'id') ?? assert.fail('a queue item without an id');
      assert.ok(!ids.has(id), `item ${id} listed twice`);
      ids.set(id, stringAt(item, 'artist') ?? '');
    }
    if (offset + 500 >= numberAt(body, 'total')) break;
  }
  const artists = new Set(ids.values());
  assert.equal(artists.size, ids.size, 'no candidate was queued twice');
  return ids;
}
