import { createServer, type Server } from 'node:http';
import { createHmac } from 'node:crypto';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import type { DomainEvent } from '@crateflow/sdk';
import { createLogger } from '../core/logging/create-logger.js';
import { startApp } from '../test/helpers/start-app.js';
import { startWebhookSink } from '../test/plugins/sink-webhooks/start-webhook-sink.js';
import { CONCURRENCY_PER_TARGET } from '../plugins/sink-webhooks/index.js';
import { percent, printTable } from './print-table.js';
import { runWhenMain } from './run-when-main.js';

const WEBHOOKS = 10;
const EVENTS = 2000;
const E2E_EVENTS = 1000;
const SECRET = 'bench-secret';
const TARGET_PER_SECOND = 5000;

/** A loopback receiver that counts deliveries and checks a sample of signatures; nothing else per request. */
interface CountingReceiver {
  url: string;
  count(): number;
  badSignatures(): number;
  waitFor(total: number, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

async function startCountingReceiver(): Promise<CountingReceiver> {
  let received = 0;
  let bad = 0;
  const waiters: { total: number; resolve: () => void }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received++;
      const signature = req.headers['x-webhook-signature'];
      if (received % 97 === 0 && signature !== undefined) {
        const expected = createHmac('sha256', SECRET).update(Buffer.concat(chunks)).digest('hex');
        if (signature !== expected) bad++;
      }
      res.writeHead(204).end();
      for (const waiter of [...waiters]) {
        if (received >= waiter.total) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('receiver: expected a TCP address');
  return {
    url: `http://127.0.0.1:${address.port}/hook`,
    count: () => received,
    badSignatures: () => bad,
    waitFor: (total, timeoutMs) =>
      new Promise<void>((resolve, reject) => {
        if (received >= total) return resolve();
        const timer = setTimeout(() => reject(new Error(`receiver got ${received} of ${total} within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({
          total,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The receiver's own ceiling: signed POSTs of the same size as fast as `concurrency` keep-alive connections allow. */
async function measureReceiverCeiling(receiver: CountingReceiver, total: number, concurrency: number): Promise<number> {
  const agent = new Agent({ connections: concurrency, keepAliveTimeout: 4000 });
  const body = JSON.stringify(payload(event(0)));
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < total) {
      next++;
      const signature = createHmac('sha256', SECRET).update(body).digest('hex');
      const res = await request(receiver.url, {
        method: 'POST',
        dispatcher: agent,
        body,
        headers: { 'content-type': 'application/json', 'x-webhook-signature': signature, 'x-webhook-event': 'queue_approved' },
      });
      await res.body.dump();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  return Math.round(total / seconds);
}

function event(i: number): DomainEvent {
  return {
    id: `bench_${process.pid}_${i}`,
    type: 'queue_approved',
    timestamp: new Date().toISOString(),
    data: { artist: `Artist ${i}`, album: `Album ${i}`, mbid: 'b1e1c5b4-5a8f-4a4a-9d8e-0c6c6e1f8f00' },
  };
}

function payload(e: DomainEvent) {
  return { event: e.type, timestamp: e.timestamp, data: e.data };
}

/** The sink alone: EVENTS events, each fanned out to WEBHOOKS signed webhooks, handed over 32 at a time like the event bus. */
async function measureSink(receiver: CountingReceiver): Promise<{ perSecond: number; ms: number; handOverMs: number; cpuMicros: number }> {
  const webhooks = Array.from({ length: WEBHOOKS }, (_, i) => ({ name: `hook-${i}`, url: `${receiver.url}?n=${i}`, secret: SECRET, events: ['queue_approved'] }));
  const sink = await startWebhookSink({ webhooks });
  try {
    const base = receiver.count();
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    let next = 0;
    const handOver = async () => {
      while (next < EVENTS) await sink.sink.deliver(event(next++));
    };
    await Promise.all(Array.from({ length: 32 }, handOver));
    const handOverMs = performance.now() - started;
    await receiver.waitFor(base + EVENTS * WEBHOOKS, 120_000);
    const ms = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const cpuMicros = Math.round((cpu.user + cpu.system) / (EVENTS * WEBHOOKS));
    return { perSecond: Math.round((EVENTS * WEBHOOKS * 1000) / ms), ms: Math.round(ms), handOverMs: Math.round(handOverMs), cpuMicros };
  } finally {
    await sink.close();
  }
}

/** End to end: approve E2E_EVENTS queued items in one request, until every receiver got every queue_approved. */
async function measureEndToEnd(receiver: CountingReceiver): Promise<{ perSecond: number; ms: number } | string> {
  const webhooks = Array.from({ length: WEBHOOKS }, (_, i) => ({ name: `hook-${i}`, url: `${receiver.url}?e2e=${i}`, secret: SECRET, events: ['queue_approved'] }));
  const app = await startApp({ config: { webhooks }, log: createLogger('warn'), validateResponses: false });
  try {
    const candidates = Array.from({ length: E2E_EVENTS }, (_, i) => ({ artist: `E2E Artist ${i}`, album: `E2E Album ${i}` }));
    const added = await fetch(`${app.baseUrl}/api/v1/queue`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(candidates) });
    if (added.status !== 201) return `POST /api/v1/queue answered ${added.status}`;
    const base = receiver.count();
    const started = performance.now();
    const approved = await fetch(`${app.baseUrl}/api/v1/queue/approve`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ all: true }) });
    if (approved.status !== 200) return `POST /api/v1/queue/approve answered ${approved.status}`;
    await receiver.waitFor(base + E2E_EVENTS * WEBHOOKS, 120_000);
    const ms = performance.now() - started;
    return { perSecond: Math.round((E2E_EVENTS * 1000) / ms), ms: Math.round(ms) };
  } finally {
    await app.close();
  }
}

/**
 * Issue 5, point 8: signed deliveries per second from events fanned out to 10 webhooks on one loopback receiver,
 * beside that receiver's own ceiling (signed POSTs from a bare undici client at the same concurrency), and events
 * per second end to end (approve → all ten receivers got it).
 */
export async function run(): Promise<void> {
  const receiver = await startCountingReceiver();
  try {
    const concurrency = WEBHOOKS * CONCURRENCY_PER_TARGET;
    await measureReceiverCeiling(receiver, 2000, concurrency); // warm-up
    const ceiling = await measureReceiverCeiling(receiver, EVENTS * WEBHOOKS, concurrency);
    await measureSink(receiver); // warm-up (JIT, connection pools)
    const sink = await measureSink(receiver);
    const e2e = await measureEndToEnd(receiver);
    const rows: (string | number)[][] = [
      ['receiver ceiling (bare undici, signed POSTs)', ceiling, `${concurrency} in flight`],
      [`webhooks sink: ${EVENTS.toLocaleString('en-US')} events × ${WEBHOOKS} webhooks, signed`, sink.perSecond, `${sink.ms} ms (hand-over ${sink.handOverMs} ms)`],
    ];
    if (typeof e2e === 'string') rows.push(['end to end: approve → all receivers', 'n/a', e2e]);
    else rows.push([`end to end: approve ${E2E_EVENTS.toLocaleString('en-US')} → ${WEBHOOKS} receivers each (events/s)`, e2e.perSecond, `${e2e.ms} ms`]);
    printTable('Webhooks: signed deliveries per second on loopback', ['measurement', 'per second', 'notes'], rows, [
      `sink / receiver ceiling: ${percent(sink.perSecond, ceiling)}`,
      `signed deliveries: ${sink.perSecond.toLocaleString('en-US')}/s (target ≥ ${TARGET_PER_SECOND.toLocaleString('en-US')}) ${sink.perSecond >= TARGET_PER_SECOND ? 'PASS' : 'MISS'}`,
      `CPU per delivery: ${sink.cpuMicros} µs (sink and receiver share this process; ${cpus().length} cores, so figures drop when other work runs)`,
      `signatures checked by the receiver (every 97th): ${receiver.badSignatures()} bad`,
    ]);
  } finally {
    await receiver.close();
  }
}

runWhenMain(import.meta.url, run);
