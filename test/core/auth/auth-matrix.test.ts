import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashSecret } from '@crateflow/sdk';
import { jsonOf, rawRequest, type RawResponse } from '../../helpers/raw-request.js';
import { startApp, type StartedApp } from '../../helpers/start-app.js';

// mode × credential × peer address × route → status. The app listens on '::', so a connection to 127.0.0.1
// arrives as the IPv4-mapped peer ::ffff:127.0.0.1 and must still match trusted_proxies' 127.0.0.1/32; one
// from 127.0.0.x (x ≥ 10, ::ffff:127.0.0.x) is outside trusted_proxies; ::1 is IPv6 loopback (trusted, ::1/128).
// Each credential row is its own client for the failed-login limit (the untrusted peer gets its own source
// address, the trusted ones an X-Forwarded-For hop), so wrong credentials stay 401 and never turn into 429.

const KEYS = { viewer: 'viewer-key-0123456789abcdef', approver: 'approver-key-0123456789abcdef', wrong: 'wrong-key-0123456789abcdef' };
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

const CREDENTIALS: Record<string, Record<string, string>> = {
  'none': {},
  'key viewer (X-API-Key)': { 'x-api-key': KEYS.viewer },
  'key approver (Bearer)': { authorization: `Bearer ${KEYS.approver}` },
  'key wrong': { 'x-api-key': KEYS.wrong },
  'basic right': { authorization: basic('admin', 'hunter2 hunter2') },
  'basic wrong': { authorization: basic('admin', 'hunter3') },
  'remote admins': { 'remote-user': 'alice', 'remote-groups': 'music-admins,music', 'remote-name': 'Alice', 'remote-email': 'alice@example.com' },
  'remote viewer': { 'remote-user': 'bob', 'remote-groups': 'music' },
  'remote no group': { 'remote-user': 'carol', 'remote-groups': '' },
  'remote empty': { 'remote-user': '', 'remote-groups': 'music-admins' },
};

const PEERS = [
  { name: '127.0.0.1 (mapped)', host: '127.0.0.1', untrusted: false },
  { name: '::1', host: '[::1]', untrusted: false },
  { name: '127.0.0.x (untrusted)', host: '127.0.0.1', untrusted: true },
] as const;

const ROUTES = [
  { name: 'GET /health', method: 'GET', path: '/health' },
  { name: 'GET /auth/info', method: 'GET', path: '/api/v1/auth/info' },
  { name: 'GET /plugins (viewer)', method: 'GET', path: '/api/v1/plugins' },
  { name: 'POST /queue (approver)', method: 'POST', path: '/api/v1/queue' },
  { name: 'POST /webhooks/test (admin)', method: 'POST', path: '/api/v1/webhooks/test' },
] as const;

// Expected: statuses of ROUTES in order, then the user /auth/info reports ('-' for nobody).
// Columns: [mode, credential, from the trusted peers (127.0.0.1 mapped and ::1), from 127.0.0.x].
const EXPECTED: [string, string, string, string][] = [
  ['disabled', 'none', '200 200 200 201 200 -', 'same'],
  ['disabled', 'key viewer (X-API-Key)', '200 200 200 403 403 viewer-bot', 'same'],
  ['disabled', 'key approver (Bearer)', '200 200 200 201 403 approver-bot', 'same'],
  ['disabled', 'key wrong', '200 200 200 201 200 -', 'same'],
  ['disabled', 'basic right', '200 200 200 201 200 -', 'same'],
  ['disabled', 'basic wrong', '200 200 200 201 200 -', 'same'],
  ['disabled', 'remote admins', '200 200 200 201 200 -', 'same'],
  ['disabled', 'remote viewer', '200 200 200 201 200 -', 'same'],
  ['disabled', 'remote no group', '200 200 200 201 200 -', 'same'],
  ['disabled', 'remote empty', '200 200 200 201 200 -', 'same'],
  ['basic', 'none', '200 200 401 401 401 -', 'same'],
  ['basic', 'key viewer (X-API-Key)', '200 200 200 403 403 viewer-bot', 'same'],
  ['basic', 'key approver (Bearer)', '200 200 200 201 403 approver-bot', 'same'],
  ['basic', 'key wrong', '200 200 401 401 401 -', 'same'],
  ['basic', 'basic right', '200 200 200 201 200 admin', 'same'],
  ['basic', 'basic wrong', '200 200 401 401 401 -', 'same'],
  ['basic', 'remote admins', '200 200 401 401 401 -', 'same'],
  ['basic', 'remote viewer', '200 200 401 401 401 -', 'same'],
  ['basic', 'remote no group', '200 200 401 401 401 -', 'same'],
  ['basic', 'remote empty', '200 200 401 401 401 -', 'same'],
  ['proxy', 'none', '200 200 401 401 401 -', 'same'],
  ['proxy', 'key viewer (X-API-Key)', '200 200 200 403 403 viewer-bot', 'same'],
  ['proxy', 'key approver (Bearer)', '200 200 200 201 403 approver-bot', 'same'],
  ['proxy', 'key wrong', '200 200 401 401 401 -', 'same'],
  ['proxy', 'basic right', '200 200 401 401 401 -', 'same'],
  ['proxy', 'basic wrong', '200 200 401 401 401 -', 'same'],
  ['proxy', 'remote admins', '200 200 200 201 200 alice', '200 200 401 401 401 -'],
  ['proxy', 'remote viewer', '200 200 200 403 403 bob', '200 200 401 401 401 -'],
  ['proxy', 'remote no group', '200 200 403 403 403 carol', '200 200 401 401 401 -'],
  ['proxy', 'remote empty', '200 200 401 401 401 -', 'same'],
];

const MODES = ['disabled', 'basic', 'proxy'] as const;
type Mode = (typeof MODES)[number];

async function authConfig(mode: Mode): Promise<Record<string, unknown>> {
  const api_keys = [
    { name: 'viewer-bot', key: KEYS.viewer, role: 'viewer' },
    { name: 'approver-bot', key_hash: await hashSecret(KEYS.approver), role: 'approver' },
  ];
  if (mode === 'disabled') return { enabled: false, api_keys };
  if (mode === 'basic') return { enabled: true, type: 'basic', username: 'admin', password_hash: await hashSecret('hunter2 hunter2'), api_keys };
  return {
    enabled: true,
    type: 'proxy',
    trusted_headers: ['Remote-User', 'Remote-Groups', 'Remote-Name', 'Remote-Email'],
    roles: { 'music-admins': 'admin', music: 'viewer' },
    api_keys,
  };
}

function userOf(response: RawResponse): string {
  const body = jsonOf(response);
  if (typeof body !== 'object' || body === null || !('user' in body)) return '?';
  const user = body.user;
  return typeof user === 'object' && user !== null && 'name' in user && typeof user.name === 'string' ? user.name : '-';
}

function checkProblem(response: RawResponse, where: string, challenge: string): void {
  if (response.status !== 401 && response.status !== 403) return;
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/, where);
  if (response.status === 401) assert.equal(response.headers['www-authenticate'], challenge, where);
}

describe('authentication matrix: mode × credential × peer × route', () => {
  const apps = new Map<Mode, StartedApp>();
  before(async () => {
    for (const mode of MODES) apps.set(mode, await startApp({ config: { server: { host: '::' }, ui: { auth: await authConfig(mode) } } }));
  });
  after(async () => {
    await Promise.all([...apps.values()].map((app) => app.close()));
  });

  for (const mode of MODES) {
    it(`answers every ${mode}-mode request as the table says`, async () => {
      const app = apps.get(mode);
      assert.ok(app);
      const challenge = mode === 'basic' ? 'Basic realm="crateflow", charset="UTF-8"' : 'Bearer realm="crateflow"';
      const actual: string[] = [];
      const expected: string[] = [];
      let album = 0;
      for (const [row, [rowMode, credential, trusted, untrusted]] of EXPECTED.filter((r) => r[0] === mode).entries()) {
        for (const peer of PEERS) {
          const cells: string[] = [];
          let who = '?';
          for (const route of ROUTES) {
            const where = `${rowMode} / ${credential} / ${peer.name} / ${route.name}`;
            const body = route.path === '/api/v1/queue'
              ? JSON.stringify({ artist: 'Matrix', album: `Album ${album++}` })
              : route.method === 'POST' ? JSON.stringify({ url: 'https://hooks.example.com/crateflow', dry_run: true }) : undefined;
            const response = await rawRequest(`http://${peer.host}:${app.port}${route.path}`, {
              method: route.method,
              headers: {
                accept: 'application/json',
                ...(body ? { 'content-type': 'application/json' } : {}),
                ...(peer.untrusted ? {} : { 'x-forwarded-for': `198.51.100.${row + 1}` }),
                ...CREDENTIALS[credential],
              },
              ...(body ? { body } : {}),
              ...(peer.untrusted ? { localAddress: `127.0.0.${row + 10}` } : {}),
            });
            cells.push(String(response.status));
            checkProblem(response, where, challenge);
            if (route.path === '/api/v1/auth/info') who = userOf(response);
          }
          const line = (result: string) => `${mode.padEnd(8)} | ${credential.padEnd(22)} | ${peer.name.padEnd(21)} | ${result}`;
          actual.push(line(`${cells.join(' ')} ${who}`));
          expected.push(line(peer.untrusted && untrusted !== 'same' ? untrusted : trusted));
        }
      }
      const header = `${'mode'.padEnd(8)} | ${'credential'.padEnd(22)} | ${'peer'.padEnd(21)} | ${ROUTES.map((r) => r.name).join(' | ')} | auth/info user`;
      console.log(`\n${header}\n${'-'.repeat(header.length)}\n${actual.join('\n')}`);
      assert.deepEqual(actual, expected);
    });
  }
});
