import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import type { QueueItem } from '../../../core/queue/queue-item.schema.js';
import { refusals, sent } from '../../fixtures/plugins/scripted-notifier.js';
import { api, eventually } from '../../helpers/api-client.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { startApp, type StartedApp } from '../../helpers/start-app.js';

const NOTIFIER = fileURLToPath(new URL('../../fixtures/plugins/scripted-notifier.ts', import.meta.url));

async function start(t: TestContext, labels: string[]): Promise<{ app: StartedApp; clock: ManualClock }> {
  sent.length = 0;
  refusals.clear();
  const clock = new ManualClock();
  const app = await startApp({
    clock,
    config: {
      server: { public_url: 'https://music.example.org' },
      events: { sink_timeout_ms: 1000 },
      notifications: labels.map((label) => ({ name: label, use: NOTIFIER, label, digest: 'off' })),
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

  it('keeps telling one channel while another hangs', async (t) => {
    const { app } = await start(t, ['stuck', 'phone']);
    refusals.set('stuck', { count: 5, hang: true });
    await add(app, 'Secret Name');
    await add(app, 'Drums and Guns');
    await eventually(() => (sent.filter((entry) => entry.label === 'phone').length === 2 ? true : undefined), 10_000, 'both sent to the working channel');
  });
});
