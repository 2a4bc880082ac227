// start-app first: it loads reflect-metadata for the container the app builds.
import { startApp, type StartedApp } from '../../helpers/start-app.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashSecret } from '@crateflow/sdk';

// Every operation of the OpenAPI document × every role → allowed or refused. The table is written by hand: a new
// route fails this test until someone decides, here, who may call it (a route cannot leave its access out either:
// RouteSpec.access is required). "allowed" means the request got past authorisation (any status but 401/403: a
// 400 for the empty body, a 404 for the made-up id); "refused" means 403, and 401 without credentials.

type Who = 'admin' | 'approver' | 'requester' | 'viewer';
const WHO: readonly Who[] = ['admin', 'approver', 'requester', 'viewer'];

// Who may call each operation; `public` needs no credentials at all.
const MATRIX: Record<string, readonly Who[] | 'public'> = {
  'GET /api/v1/auth/info': 'public',
  'POST /api/v1/auth/login': 'public',
  'POST /api/v1/auth/logout': 'public',
  'GET /api/v1/openapi.json': 'public',
  'POST /api/v1/auth/sessions/revoke': ['admin'],
  'GET /api/v1/plugins': ['admin', 'approver', 'viewer'],
  'GET /api/v1/queue/pending': ['admin', 'approver', 'viewer'],
  'GET /api/v1/queue/sources': ['admin', 'approver', 'viewer'],
  'GET /api/v1/queue': ['admin', 'approver', 'viewer'],
  'POST /api/v1/queue': ['admin', 'approver', 'requester'],
  'POST /api/v1/queue/{id}/restore': ['admin', 'approver'],
  'POST /api/v1/queue/approve': ['admin', 'approver'],
  'POST /api/v1/queue/reject': ['admin', 'approver'],
  'POST /api/v1/queue/{id}/approve': ['admin', 'approver'],
  'POST /api/v1/queue/{id}/reject': ['admin', 'approver'],
  'GET /api/v1/requests': ['admin', 'approver', 'requester', 'viewer'],
  'POST /api/v1/requests/{id}/cancel': ['admin', 'approver', 'requester'],
  'GET /api/v1/wishlist': ['admin', 'approver', 'viewer'],
  'POST /api/v1/wishlist': ['admin', 'approver'],
  'DELETE /api/v1/wishlist/{id}': ['admin', 'approver'],
  'GET /api/v1/downloads': ['admin', 'approver', 'viewer'],
  'POST /api/v1/downloads/{id}/retry': ['admin', 'approver'],
  'POST /api/v1/library/sync': ['admin', 'approver'],
  'GET /api/v1/library': ['admin', 'approver', 'viewer'],
  'GET /api/v1/jobs': ['admin', 'approver', 'viewer'],
  'GET /api/v1/jobs/{id}': ['admin', 'approver', 'viewer'],
  'GET /api/v1/sources': ['admin', 'approver', 'viewer'],
  'POST /api/v1/sources/{name}/run': ['admin', 'approver'],
  'GET /api/v1/covers/{mbid}': ['admin', 'approver', 'requester', 'viewer'],
  'GET /api/v1/search': ['admin', 'approver', 'requester', 'viewer'],
  'GET /api/v1/previews': ['admin', 'approver', 'requester', 'viewer'],
  'GET /api/v1/release-groups/{mbid}': ['admin', 'approver', 'requester', 'viewer'],
  'POST /api/v1/approvals/revoke': ['admin'],
  'GET /api/v1/users': ['admin'],
  'POST /api/v1/users': ['admin'],
  'PATCH /api/v1/users/{name}': ['admin'],
  'DELETE /api/v1/users/{name}': ['admin'],
  'GET /api/v1/api-keys': ['admin'],
  'POST /api/v1/api-keys': ['admin'],
  'DELETE /api/v1/api-keys/{id}': ['admin'],
  'GET /api/v1/webhooks': ['admin', 'approver', 'viewer'],
  'POST /api/v1/webhooks/test': ['admin'],
  'GET /api/v1/webhooks/deliveries': ['admin', 'approver', 'viewer'],
  'POST /api/v1/webhooks/deliveries/{id}/redeliver': ['admin'],
  'GET /api/v1/stats': ['admin', 'approver', 'viewer'],
  'GET /api/v1/events/stream': ['admin', 'approver', 'viewer'],
};

const KEY = (who: Who) => `${who}-key-0123456789abcdef`;
const PARAMS: Record<string, string> = { id: 'unknown-id', name: 'nobody', mbid: '00000000-0000-4000-8000-000000000000' };

describe('roles matrix: every route × every role', () => {
  let app: StartedApp;
  let operations: string[];

  before(async () => {
    app = await startApp({
      config: {
        ui: {
          auth: {
            enabled: true, type: 'basic', username: 'admin', password_hash: await hashSecret('unused password'),
            api_keys: WHO.map((who) => ({ name: `${who}-bot`, key: KEY(who), role: who })),
          },
        },
        // Nothing outside: metadata and previews answer at once that they cannot be reached.
        metadata: { musicbrainz: { url: 'http://127.0.0.1:9' }, coverartarchive: { url: 'http://127.0.0.1:9' } },
        previews: { type: 'none' },
      },
    });
    const doc = (await (await fetch(`${app.baseUrl}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    operations = Object.entries(doc.paths).flatMap(([path, ops]) => (path.startsWith('/api/') ? Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`) : []));
  });
  after(() => app.close());

  it('has a row for every operation the server documents, and none for one it does not', () => {
    assert.deepEqual(operations.filter((op) => !(op in MATRIX)), [], 'a route without a row here: decide who may call it and add it to MATRIX');
    assert.deepEqual(Object.keys(MATRIX).filter((op) => !operations.includes(op)), [], 'a row for a route that is gone');
  });

  it('lets each role call exactly the routes its row names', async () => {
    const actual: string[] = [];
    const expected: string[] = [];
    for (const operation of operations) {
      const allowed = MATRIX[operation];
      const [method = '', template = ''] = operation.split(' ');
      const path = template.replace(/\{(\w+)\}/g, (_, name: string) => PARAMS[name] ?? 'x');
      const query = path.endsWith('/search') ? '?q=low' : path.endsWith('/previews') ? `?mbid=${PARAMS.mbid}` : '';
      for (const who of [...WHO, 'nobody'] as const) {
        const status = await statusOf(`${app.baseUrl}${path}${query}`, method, who === 'nobody' ? {} : { 'x-api-key': KEY(who) });
        const outcome = status === 401 || status === 403 ? String(status) : 'allowed';
        actual.push(`${operation} as ${who}: ${outcome}`);
        const may = allowed === 'public' || (who !== 'nobody' && allowed?.includes(who));
        expected.push(`${operation} as ${who}: ${may ? 'allowed' : who === 'nobody' ? '401' : '403'}`);
      }
    }
    assert.deepEqual(actual, expected);
  });
});

/** The status of one request; a stream's body is not waited for. */
async function statusOf(url: string, method: string, headers: Record<string, string>): Promise<number> {
  const withBody = method === 'POST' || method === 'PATCH';
  const response = await fetch(url, {
    method,
    headers: { accept: 'application/json', ...headers, ...(withBody ? { 'content-type': 'application/json' } : {}) },
    ...(withBody ? { body: '{}' } : {}),
  });
  await response.body?.cancel();
  return response.status;
}
