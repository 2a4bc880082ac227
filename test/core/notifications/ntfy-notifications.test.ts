import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { QueueItem } from '../../../core/queue/queue-item.schema.js';
import { pressHttpAction, startFakeNtfy, type FakeNtfy, type NtfyMessage } from '../../fakes/fake-ntfy.js';
import { findQueueItem } from '../../helpers/find-queue-item.js';
import { api, eventually } from '../../helpers/api-client.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { startProblems } from '../../helpers/start-problems.js';
import { startApp, type StartedApp } from '../../helpers/start-app.js';

const PUBLIC_URL = 'https://music.example.org';
const TOKEN = 'tk_0123456789abcdefghijklmnopqrs';
const HOUR = 3600_000;

interface Harness {
  app: StartedApp;
  clock: ManualClock;
  ntfy: FakeNtfy;
  add(album: string, extra?: Record<string, unknown>): Promise<QueueItem>;
}

async function start(t: TestContext, channel: Record<string, unknown> = {}): Promise<Harness> {
  const clock = new ManualClock();
  const ntfy = await startFakeNtfy({ token: TOKEN });
  const app = await startApp({
    clock,
    config: {
      server: { public_url: PUBLIC_URL },
      notifications: [{ name: 'phone', type: 'ntfy', url: ntfy.url, topic: 'crateflow-test', token: TOKEN, ...channel }],
    },
  });
  t.after(async () => {
    await app.close();
    await ntfy.close();
  });
  return {
    app,
    clock,
    ntfy,
    async add(album, extra = {}) {
      const res = await api<{ items: QueueItem[] }>(app.baseUrl, 'POST', '/api/v1/queue', { artist: 'Low', album, ...extra });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const item = res.body.items[0];
      assert.ok(item);
      return item;
    },
  };
}

/** A decision link as the phone would reach it: the public address is this test's app. */
function local(app: StartedApp, url: string): string {
  return url.replace(PUBLIC_URL, app.baseUrl);
}

const statusOf = (app: StartedApp, id: string): Promise<QueueItem | undefined> => findQueueItem(app.baseUrl, id);

describe('ntfy notifications', () => {
  it('sends a candidate added by hand at once, with Approve, Reject and Open; pressing Approve decides it, pressing again is refused', async (t) => {
    const h = await start(t);
    const item = await h.add('Double Negative', { year: 2018, cover_url: 'https://covers.example.org/dn.jpg' });
    const [message] = await h.ntfy.waitFor(1, 10_000);
    assert.ok(message);
    assert.equal(message.topic, 'crateflow-test');
    assert.equal(message.title, 'Low – Double Negative (2018)');
    assert.equal(message.attach, 'https://covers.example.org/dn.jpg');
    assert.equal(message.raw.headers.authorization, `Bearer ${TOKEN}`);
    assert.deepEqual(message.actions.map((action) => [action.action, action.label]), [['http', 'Approve'], ['http', 'Reject'], ['view', 'Open']]);
    const approve = message.actions[0];
    assert.ok(approve?.action === 'http');
    assert.match(approve.url, /^https:\/\/music\.example\.org\/decide\/[A-Za-z0-9_-]{43}$/);
    assert.equal(message.click, approve.url, 'a tap on the message opens the decision page, which decides nothing');

    const pressed = await pressHttpAction({ ...approve, url: local(h.app, approve.url) });
    assert.equal(pressed.status, 200, pressed.text);
    const decided = await statusOf(h.app, item.id);
    assert.deepEqual([decided?.status, decided?.decided_by, decided?.decided_via], ['approved', 'link', 'notify:phone']);
    const reject = message.actions[1];
    assert.ok(reject?.action === 'http');
    const again = await pressHttpAction({ ...reject, url: local(h.app, reject.url) });
    assert.equal(again.status, 410, 'the second press is refused');
    assert.equal((await statusOf(h.app, item.id))?.status, 'approved');
  });

  it('gathers candidates from sources into one digest per window, counting only those still pending', async (t) => {
    const h = await start(t, { digest: '1h' });
    const first = await h.add('One', { source: 'similar-artists', score: 0.2 });
    await h.add('Two', { source: 'similar-artists', score: 0.9 });
    await h.add('Three', { source: 'similar-artists', score: 0.5 });
    await h.add('Four', { source: 'similar-artists', score: 0.7 });
    await api(h.app.baseUrl, 'POST', `/api/v1/queue/${first.id}/reject`);
    await h.clock.advance(HOUR - 1000);
    assert.equal(h.ntfy.messages.length, 0, 'nothing before the window ends');
    await h.clock.advance(1000);
    const [digest] = await h.ntfy.waitFor(1, 10_000);
    assert.equal(digest?.title, '3 new candidates to decide');
    assert.equal(digest?.message, 'Low – Two; Low – Four; Low – Three', 'the best scored first; the rejected one is not counted');
    assert.deepEqual(digest?.actions.map((action) => action.label), ['Open']);
    await h.add('Five', { source: 'similar-artists' });
    await h.clock.advance(HOUR);
    const all = await h.ntfy.waitFor(2, 10_000);
    assert.equal(all[1]?.title, '1 new candidate to decide', 'a new window for the next candidates');
  });

  it('retries a message ntfy refused with 429 after a backoff, and sends it once', async (t) => {
    const h = await start(t);
    h.ntfy.rateLimitNext(1);
    await h.add('Nowhere');
    await waitUntil(() => h.ntfy.rejected >= 1);
    assert.equal(h.ntfy.messages.length, 0);
    await h.clock.advance(5_000);
    const [message] = await h.ntfy.waitFor(1, 10_000);
    assert.equal(message?.title, 'Low – Nowhere');
    await h.clock.advance(HOUR);
    assert.equal(h.ntfy.messages.length, 1, 'sent once');
  });

  it('does not send a candidate decided before its message went out', async (t) => {
    const h = await start(t, { digest: '1h' });
    const item = await h.add('Souvlaki', { source: 'similar-artists' });
    await api(h.app.baseUrl, 'POST', `/api/v1/queue/${item.id}/approve`);
    await h.clock.advance(HOUR);
    const later = await h.add('Pygmalion');
    await h.ntfy.waitFor(1, 10_000);
    assert.deepEqual(h.ntfy.messages.map((m: NtfyMessage) => m.title), ['Low – Pygmalion'], 'no digest of an already decided candidate');
    assert.ok(later.id);
  });

  it('keeps what is still to be sent across a restart, and sends it then', async (t) => {
    const dataDir = await mkdtemp(join(tmpdir(), 'crateflow-notify-'));
    t.after(() => rm(dataDir, { recursive: true, force: true }));
    const down = await startFakeNtfy();
    down.rateLimitNext(1000);
    const config = (url: string) => ({ storage: { dir: dataDir }, server: { public_url: PUBLIC_URL }, notifications: [{ name: 'phone', type: 'ntfy', url, topic: 'restart' }] });
    const first = await startApp({ clock: new ManualClock(), config: config(down.url) });
    const added = await api<{ items: QueueItem[] }>(first.baseUrl, 'POST', '/api/v1/queue', { artist: 'Low', album: 'C\'mon' });
    assert.equal(added.status, 201);
    await waitUntil(() => down.rejected >= 1);
    await first.close();
    await down.close();

    const up = await startFakeNtfy();
    t.after(() => up.close());
    const clock = new ManualClock();
    const second = await startApp({ clock, config: config(up.url) });
    t.after(() => second.close());
    await clock.advance(5_000);
    const [message] = await up.waitFor(1, 10_000);
    assert.equal(message?.title, "Low – C'mon");
    assert.ok(message?.actions.some((action) => action.label === 'Approve'), 'with a link issued by the new process');
  });

  it('publishes only where webhooks_policy allows, as webhooks do', async (t) => {
    const ntfy = await startFakeNtfy();
    const app = await startApp({
      config: { server: { public_url: PUBLIC_URL }, webhooks_policy: { loopback: 'block' }, notifications: [{ name: 'phone', type: 'ntfy', url: ntfy.url, topic: 'policy' }] },
    });
    t.after(async () => {
      await app.close();
      await ntfy.close();
    });
    await api(app.baseUrl, 'POST', '/api/v1/queue', { artist: 'Low', album: 'Curtain Hits the Cast' });
    const refused = await eventually(async () => {
      const plugins = await api<{ items: { name: string; last_error?: string }[] }>(app.baseUrl, 'GET', '/api/v1/plugins');
      return plugins.body.items.find((plugin) => plugin.name === 'notify-phone')?.last_error;
    }, 10_000, 'the refused publish');
    assert.match(refused, /refused/);
    assert.equal(ntfy.received.length, 0, 'nothing reached the loopback server');
  });

  it('refuses channels it cannot serve, naming the key', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ notifications: [{ name: 'phone', type: 'ntfy', topic: 'x' }] }, 'notifications[0].events'],
      [{ server: { public_url: PUBLIC_URL }, notifications: [{ name: 'phone', type: 'pager', topic: 'x' }] }, 'notifications[0].type'],
      [{ server: { public_url: PUBLIC_URL }, notifications: [{ name: 'phone', type: 'ntfy', topic: 'x', digest: '1m' }] }, 'notifications[0].digest'],
      [{ server: { public_url: PUBLIC_URL }, notifications: [{ name: 'phone', type: 'ntfy', topic: 'x' }, { name: 'phone', type: 'ntfy', topic: 'y' }] }, 'notifications[1].name'],
      [{ server: { public_url: PUBLIC_URL }, notifications: [{ name: 'phone', type: 'ntfy', topic: 'not a topic' }] }, 'notifications[0].topic'],
    ];
    for (const [config, path] of cases) {
      const problems = await startProblems(config);
      assert.ok(problems.some((p) => p.path === path), `${JSON.stringify(config)} names ${path}: ${JSON.stringify(problems)}`);
    }
  });
});

async function waitUntil(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
