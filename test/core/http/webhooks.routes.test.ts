import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeWebhookReceiver, type FakeWebhookReceiver } from '../../fakes/fake-webhook-receiver.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { startApp, type StartedApp } from '../../helpers/start-app.js';
import { expectedHexSignature, expectedStandardSignature } from '../../plugins/sink-webhooks/verify-signatures.js';
import { waitUntil } from '../../plugins/sink-webhooks/wait-until.js';

const ADMIN_KEY = 'admin-key-0123456789abcdef';
const VIEWER_KEY = 'viewer-key-0123456789abcdef';
const SECRET = 'ha-secret-never-shown';

const auth = {
  enabled: true,
  type: 'basic',
  username: 'owner',
  password: 'a long enough password',
  api_keys: [
    { name: 'admin-bot', key: ADMIN_KEY, role: 'admin' },
    { name: 'viewer-bot', key: VIEWER_KEY, role: 'viewer' },
  ],
};

interface JsonResponse {
  status: number;
  contentType: string;
  text: string;
  json: unknown;
}

async function call(app: StartedApp, method: string, path: string, options: { key?: string; body?: unknown } = {}): Promise<JsonResponse> {
  const headers: Record<string, string> = {};
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${app.baseUrl}/api/v1${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text, json: text ? JSON.parse(text) : undefined };
}

/** Narrows a parsed JSON body to an object so members can be read without casts. */
function obj(value: unknown): Record<string, unknown> {
  assert.ok(value && typeof value === 'object' && !Array.isArray(value), `expected a JSON object, got ${JSON.stringify(value)}`);
  return Object.fromEntries(Object.entries(value));
}

function list(value: unknown): unknown[] {
  assert.ok(Array.isArray(value), `expected a JSON array, got ${JSON.stringify(value)}`);
  return value;
}

describe('webhooks routes', () => {
  let receiver: FakeWebhookReceiver;
  let app: StartedApp;
  const clock = new ManualClock(Date.now());

  before(async () => {
    receiver = await startFakeWebhookReceiver();
    app = await startApp({
      clock,
      config: {
        ui: { auth },
        webhooks: [
          { name: 'home-assistant', url: `${receiver.url}?to=ha`, secret: SECRET, events: ['queue_added', 'download_completed'], retry: 2, timeout_ms: 2000 },
          { name: 'node-red', url: `http://user:pa55word@127.0.0.1:${new URL(receiver.url).port}/hook?to=nr`, events: ['queue_added'], enabled: false },
          {
            name: 'token-bearing',
            url: `http://127.0.0.1:${new URL(receiver.url).port}/api/webhook/ha-path-token-0123456789?api_key=query-token-abcdef`,
            events: ['download_completed'],
            enabled: false,
          },
        ],
      },
    });
  });
  after(async () => {
    await app.close();
    await receiver.close();
  });

  describe('GET /webhooks', () => {
    it('lists configured webhooks with has_secret and never a secret, URL credentials or tokens in the path or query', async () => {
      const res = await call(app, 'GET', '/webhooks', { key: VIEWER_KEY });
      assert.equal(res.status, 200);
      for (const secret of [SECRET, 'pa55word', 'user:', 'ha-path-token', 'query-token', 'api_key']) assert.ok(!res.text.includes(secret), secret);
      const items = list(obj(res.json).items).map(obj);
      assert.deepEqual(items[0], {
        name: 'home-assistant',
        url: `${new URL(receiver.url).origin}/…`,
        enabled: true,
        events: ['queue_added', 'download_completed'],
        timeout_ms: 2000,
        retry: 2,
        has_secret: true,
      });
      assert.equal(items[1]?.has_secret, false);
      assert.equal(items[1]?.enabled, false);
      assert.equal(items[1]?.url, `${new URL(receiver.url).origin}/…`);
      assert.equal(items[2]?.url, `${new URL(receiver.url).origin}/…cdef`, 'scheme, host and a hint of the last characters');
    });

    it('answers 401 without credentials', async () => {
      const res = await call(app, 'GET', '/webhooks');
      assert.equal(res.status, 401);
    });
  });

  describe('POST /webhooks/test', () => {
    it('shows the payload and signed headers of a configured webhook on a dry run, sending nothing', async () => {
      const before = receiver.received.length;
      const res = await call(app, 'POST', '/webhooks/test', { key: ADMIN_KEY, body: { name: 'home-assistant', dry_run: true } });
      assert.equal(res.status, 200);
      assert.ok(!res.text.includes(SECRET), 'the secret never leaves the server');
      const result = obj(res.json);
      assert.equal(result.dry_run, true);
      const payload = obj(result.payload);
      assert.equal(payload.event, 'download_completed');
      assert.match(String(payload.timestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.deepEqual(Object.keys(obj(payload.data)), ['artist', 'album', 'mbid', 'download_path']);
      const body = String(result.body);
      assert.deepEqual(JSON.parse(body), payload);
      const headers = obj(result.headers);
      const bytes = Buffer.from(body, 'utf8');
      assert.equal(headers['X-Webhook-Signature'], await expectedHexSignature(SECRET, bytes));
      assert.equal(headers['webhook-signature'], await expectedStandardSignature(SECRET, String(headers['webhook-id']), String(headers['webhook-timestamp']), bytes));
      assert.equal(headers['Content-Type'], 'application/json');
      assert.match(String(headers['User-Agent']), /^crateflow\/\d/);
      assert.equal(headers['X-Webhook-Event'], 'download_completed');
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(receiver.received.length, before);
    });

    it('omits the signature headers on a dry run without a secret', async () => {
      const res = await call(app, 'POST', '/webhooks/test', { key: ADMIN_KEY, body: { url: 'http://192.168.1.20:1880/hook', dry_run: true } });
      assert.equal(res.status, 200);
      const headers = obj(obj(res.json).headers);
      assert.equal(headers['X-Webhook-Signature'], undefined);
      assert.equal(headers['webhook-signature'], undefined);
    });

    it('sends one signed sample to a url and reports the outcome', async () => {
      const before = receiver.received.length;
      const res = await call(app, 'POST', '/webhooks/test', { key: ADMIN_KEY, body: { url: `${receiver.url}?to=test`, secret: 'adhoc' } });
      assert.equal(res.status, 200);
      const result = obj(res.json);
      assert.equal(result.dry_run, false);
      assert.equal(result.success, true);
      assert.equal(result.status_code, 200);
      assert.equal(typeof result.duration_ms, 'number');
      assert.equal(result.error, undefined);
      const [sent] = await receiver.waitFor(before + 1).then((all) => all.slice(before));
      assert.equal(sent?.headers['x-webhook-event'], 'download_completed');
      assert.equal(sent?.headers['x-webhook-signature'], await expectedHexSignature('adhoc', sent?.body ?? Buffer.alloc(0)));
    });

    it('reports a failing live test once, without echoing the receiver\'s error body, and never retries it', async () => {
      receiver.respondWith(() => ({ status: 500, body: 'Traceback: db password hunter2 at /srv/internal' }));
      const before = receiver.received.length;
      const res = await call(app, 'POST', '/webhooks/test', { key: ADMIN_KEY, body: { name: 'home-assistant' } });
      receiver.respondWith(() => ({}));
      assert.equal(res.status, 200);
      assert.deepEqual({ ...obj(res.json), duration_ms: 0 }, { dry_run: false, success: false, status_code: 500, duration_ms: 0, error: 'answered 500' });
      assert.doesNotMatch(res.text, /hunter2|Traceback|srv\/internal/);
      await clock.advance(120_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(receiver.received.length, before + 1);
    });

    it('answers 400 naming the field for bad input', async () => {
      const cases: [unknown, string][] = [
        [{}, 'body.url'],
        [{ url: 'ftp://example.com/x' }, 'body.url'],
        [{ url: 'not a url' }, 'body.url'],
        [{ name: 'nas' }, 'body.name'],
        [{ name: 'home-assistant', url: receiver.url }, 'body.url'],
        [{ url: receiver.url, timeout_ms: 40000 }, 'body.timeout_ms'],
        [{ url: receiver.url, dry_run: 'yes' }, 'body.dry_run'],
        [{ url: receiver.url, extra: 1 }, 'body'],
      ];
      for (const [body, path] of cases) {
        const res = await call(app, 'POST', '/webhooks/test', { key: ADMIN_KEY, body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.match(res.contentType, /application\/problem\+json/);
        const errors = list(obj(res.json).errors).map(obj);
        assert.ok(errors.some((e) => e.path === path), `${JSON.stringify(body)} → ${res.text}`);
      }
    });

    it('needs the admin role', async () => {
      const res = await call(app, 'POST', '/webhooks/test', { key: VIEWER_KEY, body: { url: receiver.url, dry_run: true } });
      assert.equal(res.status, 403);
    });
  });

  describe('GET /webhooks/deliveries and POST /webhooks/deliveries/:id/redeliver', () => {
    it('logs the delivery of a queue_added event with the queue item id in its payload', async () => {
      const before = receiver.received.length;
      const added = await call(app, 'POST', '/queue', { key: ADMIN_KEY, body: { artist: 'Low', album: 'Double Negative' } });
      assert.equal(added.status, 201);
      const itemId = obj(list(obj(added.json).items)[0]).id;
      const [sent] = await receiver.waitFor(before + 1).then((all) => all.slice(before));
      assert.equal(sent?.query.get('to'), 'ha', 'the disabled webhook receives nothing');
      assert.deepEqual(JSON.parse(sent?.text ?? '{}').data, { artist: 'Low', album: 'Double Negative', id: itemId });
      await waitUntil('the attempt is logged', async () => obj((await call(app, 'GET', '/webhooks/deliveries?status=delivered', { key: VIEWER_KEY })).json).total === 1);
      const log = obj((await call(app, 'GET', '/webhooks/deliveries?webhook=home-assistant', { key: VIEWER_KEY })).json);
      const delivery = obj(list(log.items)[0]);
      assert.equal(delivery.id, sent?.headers['x-webhook-delivery']);
      assert.equal(delivery.event, 'queue_added');
      const attempt = obj(list(delivery.attempts)[0]);
      assert.equal(attempt.status_code, 200);
      assert.equal(attempt.next_retry_at, null);
      assert.equal(typeof attempt.duration_ms, 'number');
    });

    it('filters by webhook and status and pages', async () => {
      receiver.respondWith(() => ({ status: 503 }));
      for (const artist of ['A', 'B', 'C']) await call(app, 'POST', '/queue', { key: ADMIN_KEY, body: { artist, album: 'X' } });
      const pendingAttempted = async () =>
        list(obj((await call(app, 'GET', '/webhooks/deliveries?status=pending', { key: VIEWER_KEY })).json).items).filter((d) => list(obj(d).attempts).length === 1).length;
      await waitUntil('three pending deliveries with one failed attempt each', async () => (await pendingAttempted()) === 3);
      receiver.respondWith(() => ({}));
      const page = obj((await call(app, 'GET', '/webhooks/deliveries?status=pending&limit=2&offset=1', { key: VIEWER_KEY })).json);
      assert.equal(page.total, 3);
      assert.equal(page.limit, 2);
      assert.equal(page.offset, 1);
      assert.equal(list(page.items).length, 2);
      const none = obj((await call(app, 'GET', '/webhooks/deliveries?webhook=node-red', { key: VIEWER_KEY })).json);
      assert.equal(none.total, 0);
      const bad = await call(app, 'GET', '/webhooks/deliveries?status=lost', { key: VIEWER_KEY });
      assert.equal(bad.status, 400);
      const pending = list(obj((await call(app, 'GET', '/webhooks/deliveries?status=pending', { key: VIEWER_KEY })).json).items).map(obj);
      const firstAttempt = obj(list(pending[0]?.attempts)[0]);
      assert.equal(firstAttempt.status_code, 503);
      assert.equal(typeof firstAttempt.next_retry_at, 'string');
      await clock.advance(2000);
      await waitUntil('the retries delivered', async () => obj((await call(app, 'GET', '/webhooks/deliveries?status=pending', { key: VIEWER_KEY })).json).total === 0);
    });

    it('redelivers a logged delivery with the same delivery id and bytes', async () => {
      const log = obj((await call(app, 'GET', '/webhooks/deliveries?limit=1', { key: VIEWER_KEY })).json);
      const id = String(obj(list(log.items)[0]).id);
      const original = receiver.received.find((r) => r.headers['x-webhook-delivery'] === id);
      const before = receiver.received.length;
      const res = await call(app, 'POST', `/webhooks/deliveries/${id}/redeliver`, { key: ADMIN_KEY });
      assert.equal(res.status, 202);
      assert.equal(obj(obj(res.json).delivery).status, 'pending');
      const [again] = await receiver.waitFor(before + 1).then((all) => all.slice(before));
      assert.equal(again?.headers['x-webhook-delivery'], id);
      assert.deepEqual(again?.body, original?.body);
    });

    it('answers 404 for an unknown delivery and 403 for a viewer', async () => {
      assert.equal((await call(app, 'POST', '/webhooks/deliveries/d_nope/redeliver', { key: ADMIN_KEY })).status, 404);
      assert.equal((await call(app, 'POST', '/webhooks/deliveries/d_nope/redeliver', { key: VIEWER_KEY })).status, 403);
    });

    it('lists the routes in the OpenAPI document', async () => {
      const doc = obj((await call(app, 'GET', '/openapi.json')).json);
      const paths = Object.keys(obj(doc.paths));
      for (const path of ['/webhooks', '/webhooks/test', '/webhooks/deliveries', '/webhooks/deliveries/{id}/redeliver']) {
        assert.ok(paths.some((p) => p.endsWith(path)), path);
      }
    });
  });
});

describe('webhooks across an app restart', () => {
  it('resumes a pending retry after the app is closed and started again on the same storage.dir', async (t) => {
    const receiver = await startFakeWebhookReceiver((_request, index) => (index === 0 ? { status: 500 } : {}));
    const dataDir = await mkdtemp(join(tmpdir(), 'crateflow-webhooks-restart-'));
    let second: StartedApp | undefined;
    t.after(async () => {
      await second?.close();
      await receiver.close();
      await rm(dataDir, { recursive: true, force: true });
    });
    const config = { storage: { dir: dataDir }, webhooks: [{ name: 'hook', url: receiver.url, retry: 1, events: ['queue_added'] }] };
    const clock = new ManualClock(Date.now());
    const first = await startApp({ clock, config });
    const added = await call(first, 'POST', '/queue', { body: { artist: 'Low', album: 'Ones and Sixes' } });
    assert.equal(added.status, 201);
    await receiver.waitFor(1);
    await waitUntil('the retry is logged', async () => {
      const item = list(obj((await call(first, 'GET', '/webhooks/deliveries')).json).items)[0];
      return item !== undefined && list(obj(item).attempts).length === 1;
    });
    await first.close();

    second = await startApp({ clock, config });
    const restarted = second;
    await clock.advance(2000);
    const [original, retried] = await receiver.waitFor(2);
    assert.equal(retried?.headers['x-webhook-delivery'], original?.headers['x-webhook-delivery']);
    await waitUntil('delivered', async () => obj((await call(restarted, 'GET', '/webhooks/deliveries?status=delivered')).json).total === 1);
  });
});

describe('webhooks config', () => {
  const attempt = async (webhooks: unknown[]): Promise<string> => {
    try {
      const app = await startApp({ config: { webhooks } });
      await app.close();
      return 'started';
    } catch (err: unknown) {
      return err instanceof Error ? err.message : String(err);
    }
  };
  const valid = { name: 'a', url: 'http://127.0.0.1:9/hook', events: ['download_completed'] };

  it('stops startup naming each key that breaks the specification', async () => {
    const message = await attempt([
      { ...valid, timeout_ms: 30001 },
      { ...valid, name: 'b', retry: 6 },
      { ...valid, name: 'c', events: [] },
      { ...valid, name: 'd', events: ['download_started'] },
      { ...valid, name: 'e', url: 'ftp://example.com/' },
      { url: valid.url, events: valid.events },
      { ...valid, name: 'g', retires: 3 },
    ]);
    for (const line of [
      'webhooks[0].timeout_ms: must be <= 30000 (webhooks)',
      'webhooks[1].retry: must be <= 5 (webhooks)',
      'webhooks[2].events: must list at least 1 item (webhooks)',
      'webhooks[3].events[0]: must be one of "download_completed", "queue_approved", "queue_rejected", "wishlist_removed", "queue_added" (webhooks)',
      'webhooks[4].url: must be an http:// or https:// address, got "ftp://example.com/" (webhooks)',
      'webhooks[5].name: is required (webhooks)',
      'webhooks[6]: unknown key "retires" (webhooks)',
    ]) {
      assert.ok(message.includes(line), `expected "${line}" in:\n${message}`);
    }
  });

  it('stops startup when two webhooks share a name', async () => {
    const message = await attempt([valid, { ...valid, url: 'http://127.0.0.1:9/other' }]);
    assert.match(message, /- webhooks\[1\]\.name: "a" is already the name of entry 0; names must be unique \(webhooks\)/);
  });

  it('applies the defaults enabled: true, timeout_ms: 10000 and retry: 0', async (t) => {
    const app = await startApp({ config: { webhooks: [valid] } });
    t.after(() => app.close());
    const items = list(obj((await call(app, 'GET', '/webhooks')).json).items).map(obj);
    assert.deepEqual(items[0], { name: 'a', url: `${new URL(valid.url).origin}/…`, enabled: true, events: valid.events, timeout_ms: 10000, retry: 0, has_secret: false });
  });
});
