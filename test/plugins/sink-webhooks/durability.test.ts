import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readPluginEntries } from '../../helpers/read-stored.js';
import { startFakeWebhookReceiver } from '../../fakes/fake-webhook-receiver.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { sampleEvent } from './sample-events.js';
import { startWebhookSink } from './start-webhook-sink.js';
import { waitUntil } from './wait-until.js';

const SECOND = 1000;

interface StoredShape {
  status: string;
  attempts: unknown[];
  next_attempt_at: number | null;
}

/** The stored deliveries in a data dir, read from the file as a restarted process would. */
async function storedDeliveries(dataDir: string): Promise<StoredShape[]> {
  const entries = await readPluginEntries(dataDir, 'webhooks').catch(() => ({}));
  // The store holds what the plugin wrote: delivery records of this shape, keyed delivery/<id>.
  return Object.entries(entries)
    .filter(([key]) => key.startsWith('delivery/'))
    .map(([, value]) => value as StoredShape);
}

function startChild(dataDir: string, webhooks: unknown[], event?: unknown): Promise<ChildProcess> {
  // node --import tsx runs the script in this very process, so SIGKILL reaches it (the tsx CLI would fork).
  const args = ['--import', 'tsx', '--conditions=crateflow-source', 'test/fixtures/webhooks-child.ts', dataDir, JSON.stringify(webhooks)];
  if (event) args.push(JSON.stringify(event));
  const child = spawn(process.execPath, args, { cwd: process.cwd(), stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`child exited with ${code} before it was ready: ${stderr}`)));
  });
}

function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

describe('webhooks sink: durable outbox', () => {
  it('resumes a pending retry after a restart at its stored time, not earlier', async (t) => {
    const receiver = await startFakeWebhookReceiver((_request, index) => (index === 0 ? { status: 500 } : {}));
    const webhooks = [{ name: 'resumable', url: receiver.url, secret: 'k', retry: 3, events: ['download_completed'] }];
    const clock = new ManualClock();
    const first = await startWebhookSink({ clock, webhooks });
    const cleanups: (() => Promise<void>)[] = [];
    t.after(async () => {
      for (const cleanup of cleanups) await cleanup();
      await rm(first.dataDir, { recursive: true, force: true });
      await receiver.close();
    });
    const t0 = clock.now();
    await first.sink.deliver(sampleEvent('download_completed'));
    await waitUntil('the retry is scheduled and stored', async () => (await storedDeliveries(first.dataDir))[0]?.next_attempt_at === t0 + 2 * SECOND);
    await first.stop();

    const later = new ManualClock(t0 + 1500);
    const second = await startWebhookSink({ clock: later, webhooks, dataDir: first.dataDir });
    cleanups.push(() => second.stop());
    assert.equal(later.pending()[0], t0 + 2 * SECOND, 'the restarted sink waits for the stored retry time');
    await later.advance(499);
    assert.equal(receiver.received.length, 1);
    await later.advance(1);
    const [original, retried] = await receiver.waitFor(2);
    assert.equal(retried?.headers['x-webhook-delivery'], original?.headers['x-webhook-delivery']);
    assert.deepEqual(retried?.body, original?.body);
    await waitUntil('delivered', () => second.admin.deliveries({ limit: 1, offset: 0 }).items[0]?.status === 'delivered');
  });

  it('sends a delivery that was stored but never attempted as soon as the sink starts again', async (t) => {
    const receiver = await startFakeWebhookReceiver(() => ({ delayMs: 5000 }));
    const webhooks = [{ name: 'interrupted', url: receiver.url, events: ['queue_added'] }];
    const first = await startWebhookSink({ clock: new ManualClock(), webhooks });
    const cleanups: (() => Promise<void>)[] = [];
    t.after(async () => {
      for (const cleanup of cleanups) await cleanup();
      await rm(first.dataDir, { recursive: true, force: true });
      await receiver.close();
    });
    await first.sink.deliver(sampleEvent('queue_added'));
    await receiver.waitFor(1);
    await first.stop(); // aborts the attempt in flight: it does not count, the delivery stays pending
    assert.equal((await storedDeliveries(first.dataDir))[0]?.status, 'pending');
    receiver.respondWith(() => ({}));
    const second = await startWebhookSink({ clock: new ManualClock(), webhooks, dataDir: first.dataDir });
    cleanups.push(() => second.stop());
    await receiver.waitFor(2);
    await waitUntil('delivered', () => second.admin.deliveries({ limit: 1, offset: 0 }).items[0]?.status === 'delivered');
    assert.equal(second.admin.deliveries({ limit: 1, offset: 0 }).items[0]?.attempts.length, 1);
  });

  it('survives kill -9 of the process mid-retry: the next process retries on schedule and never resends after a 2xx', async (t) => {
    const receiver = await startFakeWebhookReceiver((_request, index) => (index < 2 ? { status: 503 } : {}));
    const dataDir = await mkdtemp(join(tmpdir(), 'crateflow-webhooks-kill-'));
    const children: ChildProcess[] = [];
    t.after(async () => {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) await killHard(child);
      await rm(dataDir, { recursive: true, force: true });
      await receiver.close();
    });
    const webhooks = [{ name: 'crashy', url: receiver.url, secret: 'k', retry: 3, events: ['download_completed'] }];
    const event = sampleEvent('download_completed');

    children.push(await startChild(dataDir, webhooks, event));
    await receiver.waitFor(2, 60_000);
    await waitUntil('the second failure and its retry time are on disk', async () => (await storedDeliveries(dataDir))[0]?.attempts.length === 2);
    const [stored] = await storedDeliveries(dataDir);
    const dueAt = stored?.next_attempt_at ?? 0;
    await killHard(children[0] ?? assert.fail('no child'));

    children.push(await startChild(dataDir, webhooks));
    // Liveness bounds only: a loaded machine may start the next process after the stored time, and then the retry
    // goes out as soon as it starts. That it is not early is the point; how late is the start's cost (issue #27).
    const requests = await receiver.waitFor(3, 60_000);
    const third = requests[2];
    assert.ok(third);
    assert.ok(third.receivedAt.getTime() >= dueAt - 50, `retried ${dueAt - third.receivedAt.getTime()} ms before its stored time`);
    assert.equal(new Set(requests.map((r) => r.headers['x-webhook-delivery'])).size, 1);
    assert.equal(new Set(requests.map((r) => r.body.toString('hex'))).size, 1);

    await waitUntil('the 2xx is on disk', async () => (await storedDeliveries(dataDir))[0]?.status === 'delivered', 60_000);
    await killHard(children[1] ?? assert.fail('no child'));
    children.push(await startChild(dataDir, webhooks, event));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.equal(receiver.received.length, 3, 'an acknowledged delivery is never sent again, even when the event is handed over again');
  });
});
