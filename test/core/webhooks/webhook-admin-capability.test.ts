import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../../../core/config/config-error.js';
import { startApp, type StartedApp } from '../../helpers/start-app.js';

// The webhooks API is served by whichever event sink offers the webhook-admin capability, found by capability
// and not by name, and every call into it has a deadline.
const FIXTURE = fileURLToPath(new URL('../../fixtures/plugins/webhook-admin-sink.ts', import.meta.url));

interface Answer {
  status: number;
  contentType: string;
  json: Record<string, unknown>;
}

async function call(app: StartedApp, method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${app.baseUrl}/api/v1${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed: unknown = await res.json();
  assert.ok(parsed && typeof parsed === 'object' && !Array.isArray(parsed), `expected a JSON object from ${method} ${path}`);
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', json: Object.fromEntries(Object.entries(parsed)) };
}

function names(answer: Answer): unknown[] {
  const items = answer.json.items;
  assert.ok(Array.isArray(items), 'items is a list');
  return items.map((item: unknown) => (item && typeof item === 'object' && 'name' in item ? item.name : undefined));
}

async function withApp(t: { after(fn: () => Promise<void>): void }, config: Record<string, unknown>): Promise<StartedApp> {
  const app = await startApp({ config });
  t.after(() => app.close());
  return app;
}

const fixtureSink = (config: Record<string, unknown>) => ({ plugins: [{ use: FIXTURE, config }] });
const builtInWebhook = { name: 'home-assistant', url: 'http://127.0.0.1:9/hook', events: ['download_completed'] };

describe('webhooks API served through the webhook-admin capability', () => {
  it('is served by a third-party sink that offers the capability when webhooks: is empty', async (t) => {
    const app = await withApp(t, fixtureSink({ targets: ['fixture-endpoint'] }));
    assert.deepEqual(names(await call(app, 'GET', '/webhooks')), ['fixture-endpoint']);
    const log = await call(app, 'GET', '/webhooks/deliveries?limit=5');
    assert.equal(log.status, 200);
    assert.equal(log.json.total, 1);
    const redelivered = await call(app, 'POST', '/webhooks/deliveries/fx-1/redeliver');
    assert.equal(redelivered.status, 202);
    const unknown = await call(app, 'POST', '/webhooks/deliveries/fx-2/redeliver');
    assert.equal(unknown.status, 404);
    const dry = await call(app, 'POST', '/webhooks/test', { name: 'fixture-endpoint', dry_run: true });
    assert.equal(dry.status, 200);
    assert.deepEqual(dry.json.headers, { 'X-Fixture': 'yes' });
    const badName = await call(app, 'POST', '/webhooks/test', { name: 'nas', dry_run: true });
    assert.equal(badName.status, 400);
    assert.match(JSON.stringify(badName.json.errors), /"path":"body\.name"/);
  });

  it('is served from the sdk 1.0.0 member name `admin` as well', async (t) => {
    const app = await withApp(t, fixtureSink({ targets: ['legacy-endpoint'], member: 'admin' }));
    assert.deepEqual(names(await call(app, 'GET', '/webhooks')), ['legacy-endpoint']);
  });

  it('is served by the built-in webhooks: sink when it has webhooks and the other offering sink has none', async (t) => {
    const app = await withApp(t, { webhooks: [builtInWebhook], ...fixtureSink({ targets: [] }) });
    assert.deepEqual(names(await call(app, 'GET', '/webhooks')), ['home-assistant']);
  });

  it('is served by the first loaded sink (the built-in one) when no offering sink has targets', async (t) => {
    const app = await withApp(t, fixtureSink({ targets: [] }));
    const dry = await call(app, 'POST', '/webhooks/test', { url: 'http://127.0.0.1:9/hook', dry_run: true });
    assert.equal(dry.status, 200);
    const headers = dry.json.headers;
    assert.ok(headers && typeof headers === 'object' && 'X-Webhook-Delivery' in headers, 'the built-in sink built this dry run');
  });

  it('stops the start-up naming both sinks when two offering sinks have targets', async () => {
    const started = startApp({ config: { webhooks: [builtInWebhook], ...fixtureSink({ targets: ['fixture-endpoint'] }) } });
    await assert.rejects(started, (err: unknown) => {
      assert.ok(err instanceof ConfigError, `expected a ConfigError, got ${String(err)}`);
      assert.equal(err.problems.length, 1);
      assert.equal(err.problems[0]?.path, 'plugins[0].config');
      assert.match(err.problems[0]?.message ?? '', /"webhooks" \(webhooks\) and "fixture-webhook-admin" \(plugins\[0\]\.config\) both have webhooks configured/);
      return true;
    });
  });

  it('answers 503 problem+json within the deadline when the sink does not answer, and keeps serving', async (t) => {
    const app = await withApp(t, { events: { sink_timeout_ms: 300 }, ...fixtureSink({ targets: ['fixture-endpoint'], misbehave: 'hang' }) });
    const started = performance.now();
    const log = await call(app, 'GET', '/webhooks/deliveries');
    const redeliver = await call(app, 'POST', '/webhooks/deliveries/fx-1/redeliver');
    const elapsed = performance.now() - started;
    for (const answer of [log, redeliver]) {
      assert.equal(answer.status, 503);
      assert.equal(answer.contentType, 'application/problem+json');
      assert.equal(answer.json.type, 'urn:crateflow:problem:plugin-unavailable');
    }
    assert.ok(elapsed < 5000, `both answered after ${Math.round(elapsed)} ms; the deadline is 300 ms each`);
    assert.equal((await call(app, 'GET', '/webhooks')).status, 200, 'calls that answer are still served');
    const plugins = await call(app, 'GET', '/plugins');
    assert.match(JSON.stringify(plugins.json), /no answer within 300 ms/, 'the operator view names the overrun');
  });

  it('answers 503 problem+json when the sink throws', async (t) => {
    const app = await withApp(t, fixtureSink({ targets: ['fixture-endpoint'], misbehave: 'throw' }));
    const log = await call(app, 'GET', '/webhooks/deliveries');
    assert.equal(log.status, 503);
    assert.equal(log.json.type, 'urn:crateflow:problem:plugin-unavailable');
    assert.ok(!JSON.stringify(log.json).includes('on purpose'), 'the sink’s own message stays in the log');
  });
});
