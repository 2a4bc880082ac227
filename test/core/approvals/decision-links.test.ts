import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from '../../../core/logging/create-logger.js';
import type { QueueItem } from '../../../core/queue/queue-item.schema.js';
import { startFakeWebhookReceiver, type FakeWebhookReceiver } from '../../fakes/fake-webhook-receiver.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DecisionLinkService } from '../../../core/approvals/decision-links.js';
import { api, eventually } from '../../helpers/api-client.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { findQueueItem } from '../../helpers/find-queue-item.js';
import { readDatabase } from '../../helpers/read-stored.js';
import { startProblems } from '../../helpers/start-problems.js';
import { startApp, type StartedApp } from '../../helpers/start-app.js';

const PUBLIC_URL = 'https://music.example.org';
const HOUR = 3600_000;

interface Harness {
  app: StartedApp;
  clock: ManualClock;
  receiver: FakeWebhookReceiver;
  logs: string[];
  /** Adds an album to the queue and answers its id and the decide_url its queue_added webhook carried. */
  propose(album: string, extra?: Record<string, unknown>): Promise<{ id: string; url: string; path: string }>;
}

async function start(t: TestContext, config: Record<string, unknown> = {}): Promise<Harness> {
  const clock = new ManualClock();
  const receiver = await startFakeWebhookReceiver();
  const logs: string[] = [];
  const log = createLogger('info', new Writable({ write: (chunk: Buffer, _encoding, done) => (logs.push(chunk.toString()), done()) }));
  const app = await startApp({
    clock,
    log,
    config: {
      server: { public_url: `${PUBLIC_URL}/` },
      webhooks: [{ name: 'chat', url: receiver.url, secret: 'chat-secret-0123456789', events: ['queue_added', 'queue_approved', 'queue_rejected'] }],
      ...config,
    },
  });
  t.after(async () => {
    await app.close();
    await receiver.close();
  });
  return {
    app,
    clock,
    receiver,
    logs,
    async propose(album, extra = {}) {
      const added = await api<{ items: QueueItem[] }>(app.baseUrl, 'POST', '/api/v1/queue', { artist: 'Low', album, ...extra });
      assert.equal(added.status, 201);
      const id = added.body.items[0]?.id ?? '';
      // Its queue_added delivery, among the others (decisions are delivered too).
      for (let count = 1; ; count++) {
        const deliveries = await receiver.waitFor(count, 10_000);
        const payload = JSON.parse(deliveries.at(-1)?.text ?? '{}') as { event: string; data: { id: string; decide_url?: string } };
        if (payload.event !== 'queue_added' || payload.data.id !== id) continue;
        const url = payload.data.decide_url ?? '';
        return { id, url, path: url.slice(PUBLIC_URL.length) };
      }
    },
  };
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' };

async function post(app: StartedApp, path: string, body: string, headers: Record<string, string>): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await fetch(app.baseUrl + path, { method: 'POST', body, headers });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

async function page(app: StartedApp, path: string): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await fetch(app.baseUrl + path, { headers: { accept: 'text/html' } });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

async function item(app: StartedApp, id: string): Promise<QueueItem> {
  const found = await findQueueItem(app.baseUrl, id);
  if (!found) throw new Error(`no queue item ${id}`);
  return found;
}

describe('decision links', () => {
  it('queue_added carries a decide_url; opening it shows the album and decides nothing; posting approve decides once', async (t) => {
    const h = await start(t);
    const { id, url, path } = await h.propose('Double Negative', { year: 2018, cover_url: 'https://covers.example.org/dn.jpg' });
    assert.match(url, /^https:\/\/music\.example\.org\/decide\/[A-Za-z0-9_-]{43}$/);

    const shown = await page(h.app, path);
    assert.equal(shown.status, 200);
    assert.match(shown.text, /Double Negative/);
    assert.match(shown.text, /<form method="post">/);
    assert.match(shown.text, /<img src="https:\/\/covers\.example\.org\/dn\.jpg"/);
    assert.equal(shown.headers.get('referrer-policy'), 'no-referrer', 'the token in the address never goes to the cover host');
    assert.equal(shown.headers.get('cache-control'), 'no-store');
    assert.match(shown.headers.get('content-security-policy') ?? '', /form-action 'self'/);
    await page(h.app, path); // a link previewer, twice
    assert.equal((await item(h.app, id)).status, 'pending', 'GET decides nothing');

    const done = await post(h.app, path, 'action=approve', FORM);
    assert.equal(done.status, 200);
    assert.match(done.text, /Done: Approved by link \(webhook\)/);
    const approved = await item(h.app, id);
    assert.deepEqual([approved.status, approved.decided_by, approved.decided_via], ['approved', 'link', 'webhook']);
    const [, decision] = await h.receiver.waitFor(2, 10_000);
    const event = JSON.parse(decision?.text ?? '{}') as { event: string; data: Record<string, unknown> };
    assert.equal(event.event, 'queue_approved');
    assert.deepEqual([event.data.decided_by, event.data.decided_via], ['link', 'webhook'], 'the decision event says who and where');
    const wishlist = await api<{ total: number }>(h.app.baseUrl, 'GET', '/api/v1/wishlist');
    assert.equal(wishlist.body.total, 1, 'the approval put the album on the wishlist');

    const again = await post(h.app, path, 'action=reject', FORM);
    assert.equal(again.status, 410);
    assert.match(again.text, /used already/);
    assert.match(again.text, /Approved by link/, 'the page says what became of the album');
    const asJson = await api<{ reason: string; item_status: string; instance: string }>(h.app.baseUrl, 'POST', path, { action: 'reject' });
    assert.equal(asJson.status, 410);
    assert.equal(asJson.body.instance, '/decide/[token]', 'the problem names the route, not the token');
    assert.equal(asJson.headers.get('content-type'), 'application/problem+json');
    assert.deepEqual([asJson.body.reason, asJson.body.item_status], ['used', 'approved']);
    assert.equal((await item(h.app, id)).status, 'approved', 'the second use changed nothing');
    const token = path.slice('/decide/'.length);
    assert.ok(!h.logs.some((line) => line.includes(token)), 'the token is never logged');
    const stored = readDatabase(h.app.dataDir, (db) => db.prepare('SELECT group_concat(value) FROM plugin_entries').pluck().get() as string);
    assert.ok(stored.includes('Double Negative') && !stored.includes('/decide/'), 'the outbox stores the body without its link');
    assert.equal(readDatabase(h.app.dataDir, (db) => db.prepare('SELECT count(*) FROM decision_links WHERE token_hash = ?').pluck().get(token)), 0, 'nor is the token stored, only its hash');
    assert.ok(h.logs.some((line) => line.includes('/decide/[token]')), 'the request is logged with the token hidden');
  });

  it('decides with JSON, and two clicks at the same moment decide once', async (t) => {
    const h = await start(t);
    const { id, path } = await h.propose('Hey What');
    const [first, second] = await Promise.all([
      api<{ status: string; item: QueueItem }>(h.app.baseUrl, 'POST', path, { action: 'reject' }),
      api<{ reason: string }>(h.app.baseUrl, 'POST', path, { action: 'approve' }),
    ]);
    assert.deepEqual([first.status, second.status].sort(), [200, 410]);
    const winner = first.status === 200 ? first : second;
    const rejected = await item(h.app, id);
    assert.equal(rejected.status, winner === first ? 'rejected' : 'approved');
    assert.equal(rejected.decided_by, 'link');
  });

  it('answers 410 once the link expires, is revoked, or its album was decided another way; 404 for an unknown link', async (t) => {
    const h = await start(t, { approvals: { link_ttl: '2h' } });
    const expiring = await h.propose('One');
    const revoked = await h.propose('Two');
    const decidedElsewhere = await h.propose('Three');

    await h.clock.advance(2 * HOUR);
    const expired = await page(h.app, expiring.path);
    assert.equal(expired.status, 410);
    assert.match(expired.text, /has expired/);
    assert.match(expired.text, /still waiting for a decision/);
    assert.equal((await post(h.app, expiring.path, 'action=approve', FORM)).status, 410);
    assert.equal((await item(h.app, expiring.id)).status, 'pending');

    const later = await h.propose('Four');
    const revoke = await api<{ revoked: number }>(h.app.baseUrl, 'POST', '/api/v1/approvals/revoke');
    assert.equal(revoke.status, 200);
    assert.equal(revoke.body.revoked, 1, 'only live links are counted: "Four" (the other three expired)');
    const gone = await api<{ reason: string }>(h.app.baseUrl, 'POST', later.path, { action: 'approve' });
    assert.deepEqual([gone.status, gone.body.reason], [410, 'revoked']);
    assert.ok(revoked.path !== later.path);

    await api(h.app.baseUrl, 'POST', `/api/v1/queue/${decidedElsewhere.id}/reject`);
    const fresh = await h.propose('Five');
    await api(h.app.baseUrl, 'POST', `/api/v1/queue/${fresh.id}/approve`);
    const other = await page(h.app, fresh.path);
    assert.equal(other.status, 410);
    assert.match(other.text, /decided already/);
    assert.match(other.text, /Approved \(api\)/);

    assert.equal((await page(h.app, `/decide/${'A'.repeat(43)}`)).status, 404);
    assert.equal((await page(h.app, '/decide/short')).status, 404);
    assert.equal((await page(h.app, '/decide/%E0%A4%A')).status, 404, 'a malformed escape is not a token');
  });

  it('refuses a missing or wrong action, a body that is not a form or JSON, and an oversized body, deciding nothing', async (t) => {
    const h = await start(t);
    const { id, path } = await h.propose('Nowhere');
    const wrong = await api<{ errors: { path: string }[] }>(h.app.baseUrl, 'POST', path, { action: 'maybe' });
    assert.equal(wrong.status, 400);
    assert.deepEqual(wrong.body.errors.map((e) => e.path), ['body.action']);
    assert.equal((await post(h.app, path, 'nothing=here', FORM)).status, 400);
    for (const inherited of ['constructor', '__proto__', 'toString']) assert.equal((await post(h.app, path, `action=${inherited}`, FORM)).status, 400, inherited);
    assert.equal((await post(h.app, path, 'action=approve', { 'content-type': 'text/plain' })).status, 415);
    assert.equal((await post(h.app, path, `action=approve&pad=${'x'.repeat(2000)}`, FORM)).status, 413);
    const put = await fetch(h.app.baseUrl + path, { method: 'PUT' });
    assert.equal(put.status, 405);
    assert.equal(put.headers.get('allow'), 'GET, HEAD, POST');
    assert.equal((await item(h.app, id)).status, 'pending');
  });

  it('limits requests per client address to 30 a minute, with Retry-After', async (t) => {
    const h = await start(t);
    const { path } = await h.propose('Souvlaki');
    for (let i = 0; i < 30; i++) assert.equal((await page(h.app, path)).status, 200);
    const limited = await page(h.app, path);
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    await h.clock.advance(60_000);
    assert.equal((await page(h.app, path)).status, 200, 'the next minute starts afresh');
  });

  it('works without signing in when the service asks for one, and only an admin may revoke', async (t) => {
    const h = await start(t, {
      ui: { auth: { enabled: true, type: 'basic', username: 'admin', password: 'correct horse battery', api_keys: [{ name: 'node-red', key: 'k'.repeat(20), role: 'approver' }] } },
    });
    const added = await api<{ items: QueueItem[] }>(h.app.baseUrl, 'POST', '/api/v1/queue', { artist: 'Low', album: 'Ones and Sixes' }, { 'x-api-key': 'k'.repeat(20) });
    assert.equal(added.status, 201);
    const [delivery] = await h.receiver.waitFor(1, 10_000);
    const url = (JSON.parse(delivery?.text ?? '{}') as { data: { decide_url: string } }).data.decide_url;
    const path = url.slice(PUBLIC_URL.length);
    assert.equal((await page(h.app, path)).status, 200, 'no login redirect for a decision link');
    const decided = await api<{ status: string }>(h.app.baseUrl, 'POST', path, { action: 'approve' });
    assert.deepEqual([decided.status, decided.body.status], [200, 'approved']);
    const byApprover = await api(h.app.baseUrl, 'POST', '/api/v1/approvals/revoke', undefined, { 'x-api-key': 'k'.repeat(20) });
    assert.equal(byApprover.status, 403);
    const anonymous = await api(h.app.baseUrl, 'POST', '/api/v1/approvals/revoke');
    assert.equal(anonymous.status, 401);
  });

  it('revokes the links issued before a start whose credentials changed, and keeps them across a start whose did not', async (t) => {
    const dataDir = await mkdtemp(join(tmpdir(), 'crateflow-links-'));
    t.after(() => rm(dataDir, { recursive: true, force: true }));
    const config = (password: string) => ({ storage: { dir: dataDir }, server: { public_url: PUBLIC_URL }, ui: { auth: { enabled: true, type: 'basic', username: 'admin', password } } });
    const issue = async (app: StartedApp) => {
      const added = await api<{ items: QueueItem[] }>(app.baseUrl, 'POST', '/api/v1/queue', { artist: 'Low', album: `Album ${Date.now()}` }, { authorization: `Basic ${Buffer.from('admin:first password here').toString('base64')}` });
      const link = app.crateflow.container.resolve(DecisionLinkService).issue(added.body.items[0]?.id ?? '', 'test');
      await link.saved;
      return new URL(link.url).pathname;
    };
    const first = await startApp({ config: config('first password here') });
    const path = await issue(first);
    await first.close();
    const same = await startApp({ config: config('first password here') });
    await same.close(); // which waits for the comparison that runs beside the start
    const revokedAt = readDatabase(dataDir, (db) => db.prepare('SELECT count(*) FROM decision_links WHERE revoked_at IS NOT NULL').pluck().get());
    assert.equal(revokedAt, 0, 'the same credentials keep the link');
    const changed = await startApp({ config: config('a new password, the old one leaked') });
    t.after(() => changed.close());
    const revoked = await eventually(async () => {
      const answer = await page(changed, path);
      return answer.status === 410 ? answer : undefined;
    }, 10_000, 'the link is revoked');
    assert.match(revoked.text, /was revoked/);
    const queueId = readDatabase(dataDir, (db) => db.prepare('SELECT queue_id FROM decision_links LIMIT 1').pluck().get() as string);
    const fresh = changed.crateflow.container.resolve(DecisionLinkService).issue(queueId, 'test');
    await fresh.saved;
    assert.equal((await page(changed, new URL(fresh.url).pathname)).status, 200, 'a link of the new start works');
  });

  it('issues no link without server.public_url, and answers links already issued', async (t) => {
    const h = await start(t, { server: {} });
    const { url } = await h.propose('Secret Name');
    assert.equal(url, '', 'queue_added has no decide_url');
  });

  it('refuses a public_url that is not an http(s) origin, and a link_ttl out of bounds, naming the key', async () => {
    for (const [config, path] of [
      [{ server: { public_url: 'music.example.org' } }, 'server.public_url'],
      [{ server: { public_url: 'ftp://music.example.org' } }, 'server.public_url'],
      [{ server: { public_url: 'https://user:pass@music.example.org' } }, 'server.public_url'],
      [{ server: { public_url: 'https://example.org/crateflow' } }, 'server.public_url'],
      [{ approvals: { link_ttl: '30s' } }, 'approvals.link_ttl'],
      [{ approvals: { link_ttl: '31d' } }, 'approvals.link_ttl'],
    ] as const) {
      const problems = await startProblems(config);
      assert.ok(problems.some((p) => p.path === path), `${JSON.stringify(config)} names ${path}: ${JSON.stringify(problems)}`);
      assert.ok(!JSON.stringify(problems).includes('pass@'), 'the refusal does not repeat a password');
    }
  });
});
