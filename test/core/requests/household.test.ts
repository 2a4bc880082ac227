// start-app first: it loads reflect-metadata for the container the app builds.
import { startApp, type StartedApp } from '../../helpers/start-app.js';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hashSecret } from '@crateflow/sdk';
import type { Job } from '../../../core/jobs/job.schema.js';
import type { QueueItem } from '../../../core/queue/queue-item.schema.js';
import type { RequestItem, RequestPage } from '../../../core/requests/request.schema.js';
import type { User } from '../../../core/users/user.schema.js';
import { api, eventually } from '../../helpers/api-client.js';
import { recordEvents, type EventRecorder } from '../../helpers/record-events.js';
import { writeAlbum } from '../../helpers/write-album.js';

const ADMIN = { authorization: basic('admin', 'admin password 1') };
const basicOf = (user: string, password: string) => ({ authorization: basic(user, password) });

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

interface AddAnswer {
  items: QueueItem[];
  duplicates: number;
  skipped: { duplicate_of: { in: string; id: string; status: string; requested_by?: string } }[];
}

async function signInAt(baseUrl: string, username: string, password: string): Promise<Record<string, string>> {
  const login = await fetch(`${baseUrl}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json', origin: baseUrl }, body: JSON.stringify({ username, password }) });
  assert.equal(login.status, 200);
  return { cookie: (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '', origin: baseUrl };
}

describe('the household: users, requests, quotas', () => {
  let app: StartedApp;
  let events: EventRecorder;
  const signIn = (username: string, password: string) => signInAt(app.baseUrl, username, password);
  const call = <T = Record<string, unknown>>(method: string, path: string, body?: unknown, headers: Record<string, string> = ADMIN) => api<T>(app.baseUrl, method, path, body, headers);

  before(async () => {
    app = await startApp({
      config: {
        ui: {
          auth: {
            enabled: true, type: 'basic', username: 'admin', password_hash: await hashSecret('admin password 1'),
            // A key that acts for amos (an approver) and may still only request: its role is the most it may do.
            api_keys: [{ name: 'amos-shortcut', key: 'amos-shortcut-key-0123456789', role: 'requester', user: 'amos' }],
          },
        },
        requests: { quota: { albums: 5, per: '7d' }, auto_approve: ['role:requester'], max_waiting: 45 },
        library: { sync_interval: '1d' },
      },
    });
    events = recordEvents(app);
    for (const [name, role, extra] of [['alice', 'requester', { auto_approve: false }], ['bob', 'requester', {}], ['vera', 'viewer', {}], ['amos', 'approver', {}]] as const) {
      const created = await call<User>('POST', '/api/v1/users', { name, password: `${name} password`, role, ...extra });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.origin, 'local');
      assert.equal(JSON.stringify(created.body).includes('scrypt'), false, 'the hash never leaves the server');
    }
  });
  after(async () => {
    events.stop();
    await app.close();
  });

  it('lists config.yaml\'s admin first, then the accounts, with what applies to each', async () => {
    const users = await call<{ items: User[] }>('GET', '/api/v1/users');
    assert.deepEqual(users.body.items.map((u) => [u.name, u.origin, u.role, u.effective.auto_approve]), [
      ['admin', 'config', 'admin', false],
      ['alice', 'local', 'requester', false],
      ['amos', 'local', 'approver', false],
      ['bob', 'local', 'requester', true],
      ['vera', 'local', 'viewer', false],
    ]);
    assert.deepEqual(users.body.items.find((u) => u.name === 'bob')?.effective.quota, { albums: 5, per: '7d' });
    const info = await call<{ user: { role: string; scopes: string[] } }>('GET', '/api/v1/auth/info', undefined, basicOf('alice', 'alice password'));
    assert.equal(info.body.user.role, 'requester');
    assert.deepEqual(info.body.user.scopes, ['request']);
  });

  it('a requester requests, sees only their own, and an admin declines with a reason the requester reads', async () => {
    const alice = basicOf('alice', 'alice password');
    events.clear();
    const asked = await call<AddAnswer>('POST', '/api/v1/queue', { artist: 'Low', album: 'Things We Lost in the Fire', note: 'the 2021 reissue please' }, alice);
    assert.equal(asked.status, 201, JSON.stringify(asked.body));
    const [request] = asked.body.items;
    assert.ok(request);
    assert.deepEqual([request.status, request.source, request.requested_by, request.note], ['pending', 'request', 'alice', 'the 2021 reissue please']);
    assert.equal(events.dataOf('queue_added')[0]?.requested_by, 'alice');

    // What a requester may not do: read the queue, decide, read the dashboard.
    for (const [method, path] of [['GET', '/api/v1/queue/pending'], ['POST', `/api/v1/queue/${request.id}/approve`], ['GET', '/api/v1/stats'], ['GET', '/api/v1/users']] as const) {
      const refused = await call(method, path, undefined, alice);
      assert.equal(refused.status, 403, `${method} ${path}`);
    }
    const mine = await call<RequestPage>('GET', '/api/v1/requests', undefined, alice);
    assert.deepEqual(mine.body.items.map((r) => [r.id, r.status, r.status_text]), [[request.id, 'requested', 'Waiting for an admin to approve it']]);

    const stats = await call<{ queue: { requests_pending: number } }>('GET', '/api/v1/stats');
    assert.equal(stats.body.queue.requests_pending, 1);
    const declined = await call<{ item: QueueItem }>('POST', `/api/v1/queue/${request.id}/reject`, { reason: 'we have the original already' });
    assert.equal(declined.status, 200, JSON.stringify(declined.body));
    assert.deepEqual(events.dataOf('queue_rejected').at(-1), { artist: 'Low', album: 'Things We Lost in the Fire', requested_by: 'alice', decided_by: 'admin', decided_via: 'api', decline_reason: 'we have the original already' });

    const seen = await call<RequestPage>('GET', '/api/v1/requests?status=declined', undefined, alice);
    assert.deepEqual(seen.body.items.map((r) => [r.status, r.decline_reason, r.status_text]), [['declined', 'we have the original already', 'Declined by admin: we have the original already']]);
    // The bare reject (no body) still works, as before requests existed.
    const other = await call<AddAnswer>('POST', '/api/v1/queue', { artist: 'Low', album: 'Secret Name' }, alice);
    const bare = await fetch(`${app.baseUrl}/api/v1/queue/${other.body.items[0]?.id}/reject`, { method: 'POST', headers: ADMIN });
    assert.equal(bare.status, 200);
  });

  it('approves exactly the quota when one requester sends 50 requests at once', async () => {
    // Signed in once, as the UI is: 50 HTTP Basic checks at once would queue up behind the password hashing.
    const bob = await signIn('bob', 'bob password');
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => call<AddAnswer>('POST', '/api/v1/queue', { artist: 'Quota Band', album: `Album ${i}` }, bob)));
    assert.deepEqual([...new Set(answers.map((a) => a.status))], [201]);
    const statuses = answers.map((a) => a.body.items[0]?.status);
    assert.equal(statuses.filter((s) => s === 'approved').length, 5);
    assert.equal(statuses.filter((s) => s === 'pending').length, 45);
    const approved = answers.map((a) => a.body.items[0]).filter((item) => item?.status === 'approved');
    assert.ok(approved.every((item) => item?.auto_approved === true && item.decided_via === 'auto_approve' && item.decided_by === 'bob'));
    const page = await call<RequestPage>('GET', '/api/v1/requests?user=bob&status=requested&limit=500');
    assert.equal(page.body.total, 45);
    // 45 waiting is requests.max_waiting here: one more is refused whole, and leaves nothing behind.
    const more = await call<{ status: number; max_waiting: number }>('POST', '/api/v1/queue', [{ artist: 'Quota Band', album: 'One More' }, { artist: 'Quota Band', album: 'And Another' }], bob);
    assert.deepEqual([more.status, more.body.max_waiting], [429, 45]);
    assert.equal((await call<RequestPage>('GET', '/api/v1/requests?user=bob&limit=500')).body.total, 50);
  });

  it('answers an album someone already wants with that, naming who only to those who read everything', async () => {
    const alice = basicOf('alice', 'alice password');
    const alices = await call<AddAnswer>('POST', '/api/v1/queue', { artist: 'Duplicate', album: 'Wanted Twice' }, alice);
    assert.equal(alices.body.items[0]?.status, 'pending', 'not auto-approved for alice: it waits');
    const again = await call<AddAnswer>('POST', '/api/v1/queue', { artist: 'Duplicate', album: 'Wanted Twice' }, basicOf('bob', 'bob password'));
    assert.equal(again.status, 201, 'a duplicate is answered even at the waiting limit: it adds nothing');
    assert.deepEqual(again.body.skipped[0]?.duplicate_of, { in: 'queue', id: alices.body.items[0]?.id, status: 'pending' });
    const byAdmin = await call<AddAnswer>('POST', '/api/v1/queue', { artist: 'Duplicate', album: 'Wanted Twice' });
    assert.equal(byAdmin.body.skipped[0]?.duplicate_of.requested_by, 'alice');
  });

  it('lets a requester cancel their own waiting request, not another\'s, and not once decided', async () => {
    const alice = basicOf('alice', 'alice password');
    const asked = await call<AddAnswer>('POST', '/api/v1/queue', { artist: 'Cancel', album: 'Changed My Mind' }, alice);
    const id = asked.body.items[0]?.id ?? '';
    assert.equal((await call('POST', `/api/v1/requests/${id}/cancel`, undefined, basicOf('bob', 'bob password'))).status, 404);
    const cancelled = await call<{ request: RequestItem }>('POST', `/api/v1/requests/${id}/cancel`, undefined, alice);
    assert.deepEqual([cancelled.status, cancelled.body.request.status, cancelled.body.request.status_text], [200, 'cancelled', 'Cancelled by the requester']);
    const twice = await call<{ detail: string }>('POST', `/api/v1/requests/${id}/cancel`, undefined, alice);
    assert.equal(twice.status, 409);
    assert.match(twice.body.detail, /declined already/);
  });

  it('follows an approved request to the library, and every event about it names the requester', async () => {
    const created = await call<User>('POST', '/api/v1/users', { name: 'kim', password: 'kim password', auto_approve: true });
    assert.equal(created.body.role, 'requester', 'a local account without a role requests');
    events.clear();
    const asked = await call<AddAnswer>('POST', '/api/v1/queue', { artist: 'Followed', album: 'To The End' }, basicOf('kim', 'kim password'));
    assert.equal(asked.body.items[0]?.status, 'approved');
    assert.deepEqual(events.events.map((e) => [e.type, e.data.requested_by]), [['queue_approved', 'kim']], 'an automatic approval never waited: no queue_added');
    const first = await call<RequestPage>('GET', '/api/v1/requests?user=kim');
    assert.match(first.body.items[0]?.status_text ?? '', /^Approved automatically/);

    await writeAlbum(join(app.dataDir, '..', 'music', 'Followed', 'To The End'));
    const started = await call<{ job: Job }>('POST', '/api/v1/library/sync');
    await eventually(async () => ((await call<Job>('GET', `/api/v1/jobs/${started.body.job.id}`)).body.status === 'running' ? undefined : true), 10_000, 'the sync');
    const last = await call<RequestPage>('GET', '/api/v1/requests?user=kim', undefined, basicOf('kim', 'kim password'));
    assert.deepEqual([last.body.items[0]?.status, last.body.items[0]?.status_text], ['in_library', 'In the library']);
    assert.equal(events.dataOf('wishlist_removed')[0]?.requested_by, 'kim');
  });

  it('refuses a disabled account, and ends sessions signed in before a password reset', async () => {
    const vera = await signIn('vera', 'vera password');
    const cookie = vera.cookie ?? '';
    assert.equal((await call('GET', '/api/v1/queue?status=pending', undefined, { cookie })).status, 200);
    assert.equal((await call('POST', '/api/v1/queue', { artist: 'Viewer', album: 'May Not Ask' }, vera)).status, 403);

    assert.equal((await call('PATCH', '/api/v1/users/vera', { password: 'a new password' })).status, 200);
    assert.equal((await call('GET', '/api/v1/queue?status=pending', undefined, { cookie })).status, 401, 'the old session ended');
    assert.equal((await call('GET', '/api/v1/queue?status=pending', undefined, basicOf('vera', 'a new password'))).status, 200);

    // A sign-in with the old password that races the reset never keeps a session past it.
    const [racing, reset] = await Promise.all([
      fetch(`${app.baseUrl}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json', origin: app.baseUrl }, body: JSON.stringify({ username: 'vera', password: 'a new password' }) }),
      call('PATCH', '/api/v1/users/vera', { password: 'a third password' }),
    ]);
    assert.equal(reset.status, 200);
    const raced = (racing.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    if (racing.status === 200) assert.equal((await call('GET', '/api/v1/queue?status=pending', undefined, { cookie: raced })).status, 401, 'the old password\'s session ended');
    assert.equal((await call('GET', '/api/v1/queue?status=pending', undefined, basicOf('vera', 'a third password'))).status, 200);
    const stream = await fetch(`${app.baseUrl}/api/v1/events/stream`, { headers: basicOf('vera', 'a third password') });
    assert.equal(stream.status, 200);
    const reader = stream.body?.getReader();
    assert.ok(reader);
    await reader.read(); // ": connected"
    assert.equal((await call('PATCH', '/api/v1/users/vera', { disabled: true })).status, 200);
    await call('POST', '/api/v1/queue', { artist: 'After', album: 'The Disable' });
    // The disabled viewer's open stream ends (the loop returns) without carrying the next event.
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) assert.doesNotMatch(new TextDecoder().decode(chunk.value), /The Disable/);
    const refused = await call<{ detail: string }>('GET', '/api/v1/queue?status=pending', undefined, basicOf('vera', 'a third password'));
    assert.equal(refused.status, 401, 'a disabled account cannot sign in');
    assert.equal((await call('PATCH', '/api/v1/users/admin', { disabled: true })).status, 409, 'config.yaml\'s admin is changed there');
    for (const name of ['Admin', 'ADMIN', 'Vera']) assert.equal((await call('POST', '/api/v1/users', { name, password: 'a password!', role: 'admin' })).status, 409, `${name}: a name people could not tell apart`);
  });

  it('makes API keys that belong to a user and carry at most their role\'s scopes', async () => {
    const beyond = await call<{ errors: { path: string }[] }>('POST', '/api/v1/api-keys', { name: 'too much', user: 'amos', scopes: ['admin'] });
    assert.equal(beyond.status, 400);
    assert.equal(beyond.body.errors[0]?.path, 'body.scopes');
    const made = await call<{ key: string; api_key: { id: string; user: string; scopes: string[] } }>('POST', '/api/v1/api-keys', { name: 'node-red', user: 'amos', scopes: ['read'] });
    assert.equal(made.status, 201);
    const key = { 'x-api-key': made.body.key };
    assert.equal((await call('GET', '/api/v1/queue?status=pending', undefined, key)).status, 200);
    assert.equal((await call('POST', '/api/v1/queue/approve', { all: true }, key)).status, 403, 'the key was narrowed to read');
    const shortcut = { 'x-api-key': 'amos-shortcut-key-0123456789' };
    assert.equal((await call('GET', '/api/v1/queue?status=pending', undefined, shortcut)).status, 403, 'the config key\'s role caps its user\'s');
    const requested = await call<AddAnswer>('POST', '/api/v1/queue', [{ artist: 'Shortcut', album: 'One', note: 'first' }, { artist: 'Shortcut', album: 'Two', note: 'second' }], shortcut);
    assert.deepEqual(requested.body.items.map((item) => [item.requested_by, item.note]), [['amos', 'first'], ['amos', 'second']], 'each album keeps its own note');
    const listed = await call<{ items: { id: string; origin: string }[] }>('GET', '/api/v1/api-keys');
    assert.ok(listed.body.items.some((k) => k.id === made.body.api_key.id && k.origin === 'stored'));
    assert.equal(JSON.stringify(listed.body).includes(made.body.key), false, 'the key is shown once');
    assert.equal((await call('DELETE', `/api/v1/users/amos`)).status, 204);
    assert.equal((await call('GET', '/api/v1/queue?status=pending', undefined, key)).status, 401, 'a deleted user\'s keys go with them');
    // A key made while its user is deleted: refused, or deleted with them; never a key a later namesake inherits.
    assert.equal((await call('POST', '/api/v1/users', { name: 'pat', password: 'pat password', role: 'viewer' })).status, 201);
    const [made2, deleted] = await Promise.all([
      call<{ key?: string }>('POST', '/api/v1/api-keys', { name: 'race', user: 'pat', scopes: ['read'] }),
      call('DELETE', '/api/v1/users/pat'),
    ]);
    assert.equal(deleted.status, 204);
    assert.ok(made2.status === 201 || made2.status === 409, `made: ${made2.status}`);
    assert.equal((await call('POST', '/api/v1/users', { name: 'pat', password: 'new pat password', role: 'admin' })).status, 201);
    if (made2.body.key) assert.equal((await call('GET', '/api/v1/users', undefined, { 'x-api-key': made2.body.key })).status, 401);
  });
});
