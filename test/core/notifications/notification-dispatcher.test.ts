import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import type { QueueItem } from '../../../core/queue/queue-item.schema.js';
import { refusals, sent } from '../../fixtures/plugins/scripted-notifier.js';
import { api, eventually } from '../../helpers/api-client.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { startApp, type StartedApp } from '../../helpers/start-app.js';

const NOTIFIER = fileURLToPath(new URL('../../fixtures/plugins/scripted-notifier.ts', import.meta.url));

const SOURCE = fileURLToPath(new URL('../../fixtures/plugins/scripted-source.ts', import.meta.url));

async function start(t: TestContext, labels: string[], channel: Record<string, unknown> = { digest: 'off' }, extra: Record<string, unknown> = {}): Promise<{ app: StartedApp; clock: ManualClock }> {
  sent.length = 0;
  refusals.clear();
  const clock = new ManualClock();
  const app = await startApp({
    clock,
    config: {
      server: { public_url: 'https://music.example.org' },
      events: { sink_timeout_ms: 1000 },
      notifications: labels.map((label) => ({ name: label, use: NOTIFIER, label, ...channel })),
      ...extra,
    },
  });
  t.after(() => app.close());
  return { app, clock };
}

async function add(app: StartedApp, album: string): Promise<QueueItem> {
  const res = await api<{ items: QueueItem[] }>(app.baseUrl, 'POST', '/api/v1/queue', { artist: 'Low', album });
  assert.equal(res.status, 201);
  const item = res.body.items[0];
  assert.ok(item);
  return item;
}

describe('notification dispatcher', () => {
  it('waits as long as a notifier asks (RetryLaterError.retryAfterMs), not just its own backoff', async (t) => {
    const { app, clock } = await start(t, ['phone']);
    refusals.set('phone', { count: 1, retryAfterMs: 60_000 });
    await add(app, 'Trust');
    await eventually(() => (refusals.get('phone')?.count === 0 ? true : undefined), 5_000, 'the first send was refused');
    await clock.advance(30_000);
    assert.equal(sent.length, 0, 'not retried after the 5 s backoff: the notifier asked for a minute');
    await clock.advance(30_000);
    await eventually(() => (sent.length === 1 ? true : undefined), 5_000, 'sent after the minute');
    assert.equal(sent[0]?.notification.title, 'Low – Trust');
    assert.match(sent[0]?.notification.id ?? '', /^n[0-9]+$/, 'the message id the retry kept');
  });

  it("sends a source's candidates each on their own with notify: each, the others in the digest", async (t) => {
    const never = '/nonexistent/crateflow-test';
    const { app, clock } = await start(t, ['phone'], { digest: '1h' }, {
      sources: [{ name: 'weekly', use: SOURCE, schedule: 'manual', notify: 'each', script_file: never, gate_file: never, calls_file: never }],
    });
    await api(app.baseUrl, 'POST', '/api/v1/queue', { artist: 'Low', album: 'Hey What', source: 'weekly' });
    await api(app.baseUrl, 'POST', '/api/v1/queue', { artist: 'Low', album: 'Ones and Sixes', source: 'radar' });
    await eventually(() => (sent.length === 1 ? true : undefined), 5_000, 'the notify: each candidate at once');
    assert.equal(sent[0]?.notification.kind, 'item');
    assert.ok(sent[0]?.notification.decide_url, 'with its decision link');
    await clock.advance(3600_000);
    await eventually(() => (sent.length === 2 ? true : undefined), 5_000, 'the digest at the end of the window');
    assert.deepEqual([sent[1]?.notification.kind, sent[1]?.notification.total], ['digest', 1]);
  });

  it('tells of an album leaving the wishlist when the channel asks for wishlist_removed', async (t) => {
    const { app } = await start(t, ['phone'], { events: ['wishlist_removed'] });
    const wanted = await api<{ id: string }>(app.baseUrl, 'POST', '/api/v1/wishlist', { artist: 'Low', album: 'Long Division' });
    assert.equal(wanted.status, 201, JSON.stringify(wanted.body));
    assert.equal((await api(app.baseUrl, 'DELETE', `/api/v1/wishlist/${wanted.body.id}`)).status, 204);
    await eventually(() => (sent.length === 1 ? true : undefined), 5_000, 'the message');
    assert.deepEqual([sent[0]?.notification.kind, sent[0]?.notification.event, sent[0]?.notification.title], ['event', 'wishlist_removed', 'Off the wishlist: Low – Long Division']);
  });

  it('keeps telling one channel while another hangs', async (t) => {
    const { app } = await start(t, ['stuck', 'phone']);
    refusals.set('stuck', { count: 5, hang: true });
    await add(app, 'Secret Name');
    await add(app, 'Drums and Guns');
    await eventually(() => (sent.filter((entry) => entry.label === 'phone').length === 2 ? true : undefined), 10_000, 'both sent to the working channel');
  });
});
