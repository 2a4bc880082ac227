import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { substituteEnv } from '../../core/config/substitute-env.js';
import type { PathProblem } from '../../core/schema/format-schema-errors.js';
import { startFakeForwardAuth, type FakeForwardAuth, type ForwardAuthPolicy, type ForwardAuthRule } from '../fakes/fake-forward-auth.js';
import { jsonOf, rawRequest, type RawResponse } from '../helpers/raw-request.js';
import { startApp, type StartedApp } from '../helpers/start-app.js';
import { DecisionLinkService } from '../../core/approvals/decision-links.js';
import { freePort, startProcess, waitFor, type ProxyProcess } from './proxy-process.js';
import { ensureCommands } from './system-commands.js';

// Real nginx and real Caddy (Debian packages, installed when missing), each in front of Crateflow in proxy mode
// and of the fake Authelia, configured with the very files in examples/deploy/ (ports and paths substituted).

const DEPLOY = new URL('../../examples/deploy/', import.meta.url);
const NODE_RED_KEY = 'node-red-key-0123456789abcdef';
const PORTAL = 'https://auth.example.com/';
const SITE = 'music.example.com';
const API_SITE = 'music-api.example.com';
const FORGED = { 'remote-user': 'mallory', 'remote-groups': 'music-admins', 'remote-name': 'Mallory', 'remote-email': 'mallory@evil.example' };

const commands = ensureCommands([
  { command: 'nginx', aptPackage: 'nginx' },
  { command: 'caddy', aptPackage: 'caddy' },
  { command: 'openssl', aptPackage: 'openssl' },
]);

interface Deployment {
  app: StartedApp;
  auth: FakeForwardAuth;
  dir: string;
}

/** Authelia's access_control from the example, as the fake's rule table (the fake does not check `subject`). */
async function accessControl(): Promise<{ rules: ForwardAuthRule[]; defaultPolicy: ForwardAuthPolicy }> {
  const document: unknown = parse(await readFile(new URL('authelia/access-control.yml', DEPLOY), 'utf8'));
  const block = field(document, 'access_control');
  const rules: ForwardAuthRule[] = [];
  for (const rule of list(field(block, 'rules'))) {
    const policy = asPolicy(field(rule, 'policy'));
    const domains = [field(rule, 'domain')].flat().map(String);
    const resources = field(rule, 'resources');
    for (const domain of domains) {
      for (const resource of resources === undefined ? ['.*'] : list(resources).map(String)) rules.push({ domain, resources: new RegExp(resource), policy });
    }
  }
  return { rules, defaultPolicy: asPolicy(field(block, 'default_policy')) };
}

/** Crateflow's server.allowed_hosts and ui.auth blocks from the example, with ${CRATEFLOW_NODE_RED_KEY} filled in as load-config does. */
async function crateflowConfig(): Promise<Record<string, unknown>> {
  const problems: PathProblem[] = [];
  const document = substituteEnv(parse(await readFile(new URL('crateflow-proxy-auth.yaml', DEPLOY), 'utf8')), { CRATEFLOW_NODE_RED_KEY: NODE_RED_KEY }, problems);
  assert.deepEqual(problems, []);
  const server = field(document, 'server');
  return { server: { allowed_hosts: field(server, 'allowed_hosts'), public_url: field(server, 'public_url') }, ui: { auth: field(field(document, 'ui'), 'auth') } };
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.getOwnPropertyDescriptor(value, key)?.value : undefined;
}

function list(value: unknown): unknown[] {
  assert.ok(Array.isArray(value), `expected a list, got ${JSON.stringify(value)}`);
  return value;
}

function asPolicy(value: unknown): ForwardAuthPolicy {
  if (value === 'bypass' || value === 'one_factor' || value === 'two_factor' || value === 'deny') return value;
  throw new Error(`not an Authelia policy: ${JSON.stringify(value)}`);
}

async function deploy(): Promise<Deployment> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-proxies-'));
  const { rules, defaultPolicy } = await accessControl();
  const auth = await startFakeForwardAuth({
    portalUrl: PORTAL,
    cookieDomain: 'example.com',
    rules,
    defaultPolicy,
    sessions: {
      'alice-2fa': { user: 'alice', groups: ['music-admins', 'music'], name: 'Alice Liddell', email: 'alice@example.com', twoFactor: true },
      'bob-1fa': { user: 'bob', groups: ['music'], name: 'Bob', email: 'bob@example.com', twoFactor: false },
      'bob-2fa': { user: 'bob', groups: ['music'], name: 'Bob', email: 'bob@example.com', twoFactor: true },
      'carol-2fa': { user: 'carol', groups: [], name: 'Carol', twoFactor: true },
      'dora-2fa': { user: 'dora', groups: ['music-family'], name: 'Dora', twoFactor: true },
      'erin-2fa': { user: 'erin', groups: ['music-family'], name: 'Erin', twoFactor: true },
    },
  });
  const app = await startApp({ config: await crateflowConfig() });
  const tls = spawnSync(commands.openssl ?? 'openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=${SITE}`,
    '-addext', `subjectAltName=DNS:${SITE},DNS:${API_SITE}`, '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
  ], { encoding: 'utf8' });
  assert.equal(tls.status, 0, tls.stderr);
  return { app, auth, dir };
}

async function startNginx(d: Deployment, port: number): Promise<ProxyProcess> {
  const problems: PathProblem[] = [];
  const site = substituteEnv(await readFile(new URL('nginx/crateflow.conf.template', DEPLOY), 'utf8'), {
    CRATEFLOW_UPSTREAM: `127.0.0.1:${d.app.port}`,
    AUTHELIA_UPSTREAM: `127.0.0.1:${d.auth.port}`,
    HTTPS_LISTEN: `127.0.0.1:${port}`,
    TLS_CERTIFICATE: join(d.dir, 'cert.pem'),
    TLS_CERTIFICATE_KEY: join(d.dir, 'key.pem'),
  }, problems);
  assert.deepEqual(problems, [], 'the template uses only the documented variables');
  const prefix = join(d.dir, 'nginx');
  await mkdir(prefix, { recursive: true });
  await writeFile(join(prefix, 'crateflow.conf'), String(site));
  // The main config a packaged nginx would have, reduced to one foreground process writing into the temp dir.
  await writeFile(join(prefix, 'nginx.conf'), [
    'daemon off;', 'master_process off;', `pid ${join(prefix, 'nginx.pid')};`, `error_log ${join(prefix, 'error.log')} warn;`,
    'events { worker_connections 64; }',
    'http {',
    '  access_log off;',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${join(prefix, `${kind}-temp`)};`),
    `  include ${join(prefix, 'crateflow.conf')};`,
    '}',
  ].join('\n'));
  const nginx = commands.nginx ?? 'nginx';
  const check = spawnSync(nginx, ['-t', '-p', prefix, '-e', join(prefix, 'error.log'), '-c', join(prefix, 'nginx.conf')], { encoding: 'utf8' });
  assert.equal(check.status, 0, `nginx -t:\n${check.stderr}`);
  return startProcess(nginx, ['-p', prefix, '-e', join(prefix, 'error.log'), '-c', join(prefix, 'nginx.conf')]);
}

async function startCaddy(d: Deployment, port: number): Promise<ProxyProcess> {
  const prefix = join(d.dir, 'caddy');
  await mkdir(prefix, { recursive: true });
  const recipe = await readFile(new URL('caddy/Caddyfile', DEPLOY), 'utf8');
  // Global options for a test: no admin endpoint, certificates from Caddy's own CA instead of Let's Encrypt.
  const global = ['{', '\tadmin off', '\tlocal_certs', '\tskip_install_trust', `\thttp_port ${await freePort()}`, `\thttps_port ${port}`,
    '\tdefault_bind 127.0.0.1', `\tstorage file_system ${join(prefix, 'data')}`, '}', ''].join('\n');
  const file = join(prefix, 'Caddyfile');
  await writeFile(file, global + recipe);
  const env = {
    ...process.env,
    CRATEFLOW_UPSTREAM: `127.0.0.1:${d.app.port}`,
    AUTHELIA_UPSTREAM: `127.0.0.1:${d.auth.port}`,
    HOME: prefix,
    XDG_DATA_HOME: join(prefix, 'xdg-data'),
    XDG_CONFIG_HOME: join(prefix, 'xdg-config'),
  };
  return startProcess(commands.caddy ?? 'caddy', ['run', '--adapter', 'caddyfile', '--config', file], env);
}

const PROXIES = [
  { name: 'nginx', start: startNginx },
  { name: 'Caddy', start: startCaddy },
] as const;

for (const proxy of PROXIES) {
  describe(`${proxy.name} with forward auth in front of Crateflow (examples/deploy)`, { timeout: 120_000 }, () => {
    let d: Deployment;
    let server: ProxyProcess;
    let port: number;
    const via = (host: string, path: string, headers: Record<string, string> = {}): Promise<RawResponse> =>
      rawRequest(`https://127.0.0.1:${port}${path}`, { servername: host, headers: { host: `${host}:${port}`, ...headers } });
    const json = { accept: 'application/json' };
    const page = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
    const signedIn = (session: string): Record<string, string> => ({ ...json, cookie: `authelia_session=${session}` });
    /** A UI action (JSON POST from the page, Origin included) by the user of a session. */
    const act = (session: string, path: string, body: unknown): Promise<RawResponse> => rawRequest(`https://127.0.0.1:${port}${path}`, {
      method: 'POST',
      servername: SITE,
      headers: { host: `${SITE}:${port}`, origin: `https://${SITE}:${port}`, 'content-type': 'application/json', ...signedIn(session) },
      body: JSON.stringify(body),
    });
    const requestsOf = async (session: string, query = ''): Promise<unknown[]> => {
      const response = await via(SITE, `/api/v1/requests${query}`, signedIn(session));
      assert.equal(response.status, 200, response.text);
      return list(field(jsonOf(response), 'items'));
    };

    before(async () => {
      d = await deploy();
      port = await freePort();
      server = await proxy.start(d, port);
      await waitFor(async () => (await via(SITE, '/health')).status === 200, 30_000, () => server.output());
    });
    after(async () => {
      await server?.stop();
      await Promise.all([d?.app.close(), d?.auth.close()]);
      if (d) await rm(d.dir, { recursive: true, force: true });
    });

    it('passes /health without a session', async () => {
      const response = await via(SITE, '/health', page);
      assert.equal(response.status, 200, server.output());
      assert.equal(field(jsonOf(response), 'status'), 'ok');
    });

    it('answers an API call without a session with 401', async () => {
      const response = await via(SITE, '/api/v1/queue/pending', json);
      assert.equal(response.status, 401);
    });

    it('sends a browser without a session to the portal with rd (302)', async () => {
      const response = await via(SITE, '/queue?sort=score', page);
      assert.equal(response.status, 302);
      const location = new URL(String(response.headers.location));
      assert.equal(`${location.origin}/`, PORTAL);
      assert.equal(location.searchParams.get('rd'), `https://${SITE}:${port}/queue?sort=score`);
    });

    it('lets the service see the user and groups of a session', async () => {
      const info = jsonOf(await via(SITE, '/api/v1/auth/info', { ...json, cookie: 'authelia_session=alice-2fa' }));
      assert.deepEqual(field(info, 'user'), { name: 'alice', display_name: 'Alice Liddell', email: 'alice@example.com', groups: ['music-admins', 'music'], role: 'admin', scopes: ['read', 'request', 'decide', 'admin'] });
      assert.equal((await via(SITE, '/api/v1/queue/pending', { ...json, cookie: 'authelia_session=alice-2fa' })).status, 200);
      assert.equal((await via(SITE, '/queue', { ...page, cookie: 'authelia_session=bob-1fa' })).status, 302, 'the UI needs two factors');
      assert.equal((await via(SITE, '/api/v1/queue/pending', { ...json, cookie: 'authelia_session=bob-1fa' })).status, 401, 'and so does the API the UI calls');
    });

    it('accepts a UI action from the browser on a port other than 443 (Origin and Host keep the port)', async () => {
      assert.notEqual(port, 443);
      const origin = `https://${SITE}:${port}`;
      const body = JSON.stringify({ artist: 'Stereolab', album: 'Dots and Loops' });
      const added = await rawRequest(`https://127.0.0.1:${port}/api/v1/queue`, {
        method: 'POST',
        servername: SITE,
        headers: { host: `${SITE}:${port}`, origin, referer: `${origin}/queue`, 'content-type': 'application/json', ...json, cookie: 'authelia_session=alice-2fa' },
        body,
      });
      assert.equal(added.status, 201, added.text);
    });

    it('gives a household group the requester role: requests are recorded as theirs, they see only their own and cannot decide', async () => {
      const info = jsonOf(await via(SITE, '/api/v1/auth/info', signedIn('dora-2fa')));
      assert.deepEqual(field(info, 'user'), { name: 'dora', display_name: 'Dora', groups: ['music-family'], role: 'requester', scopes: ['request'] });
      const asked = await act('dora-2fa', '/api/v1/queue', { artist: 'Low', album: 'Things We Lost in the Fire', note: 'for the car' });
      assert.equal(asked.status, 201, asked.text);
      const item = list(field(jsonOf(asked), 'items'))[0];
      assert.deepEqual([field(item, 'requested_by'), field(item, 'source'), field(item, 'status'), field(item, 'note')], ['dora', 'request', 'pending', 'for the car']);
      const other = await act('erin-2fa', '/api/v1/queue', { artist: 'Yo La Tengo', album: 'Painful' });
      assert.equal(other.status, 201, other.text);
      const erins = field(list(field(jsonOf(other), 'items'))[0], 'id');
      for (const query of ['', '?user=erin']) {
        const own = await requestsOf('dora-2fa', query);
        assert.ok(own.some((r) => field(r, 'id') === field(item, 'id') && field(r, 'status') === 'requested'), JSON.stringify(own));
        assert.ok(own.every((r) => field(r, 'requested_by') === 'dora'), `only dora's requests (${query || 'no query'}): ${JSON.stringify(own)}`);
      }
      assert.ok((await requestsOf('alice-2fa')).some((r) => field(r, 'id') === erins), 'the other requester\'s request exists');
      const queue = await via(SITE, '/api/v1/queue/pending', signedIn('dora-2fa'));
      assert.equal(queue.status, 403, queue.text);
      assert.match(String(queue.headers['content-type']), /^application\/problem\+json/);
      assert.equal((await act('dora-2fa', `/api/v1/queue/${String(field(item, 'id'))}/approve`, {})).status, 403, 'no approving one\'s own request');
    });

    it('lets an admin-group user decline a request with a reason that the requester then reads', async () => {
      const asked = await act('dora-2fa', '/api/v1/queue', { artist: 'Talk Talk', album: 'Spirit of Eden' });
      assert.equal(asked.status, 201, asked.text);
      const id = String(field(list(field(jsonOf(asked), 'items'))[0], 'id'));
      const seenByAdmin = (await requestsOf('alice-2fa')).find((r) => field(r, 'id') === id);
      assert.deepEqual([field(seenByAdmin, 'requested_by'), field(seenByAdmin, 'status')], ['dora', 'requested']);
      const declined = await act('alice-2fa', `/api/v1/queue/${id}/reject`, { reason: 'we have the remaster on vinyl' });
      assert.equal(declined.status, 200, declined.text);
      const seenByRequester = (await requestsOf('dora-2fa')).find((r) => field(r, 'id') === id);
      assert.deepEqual([field(seenByRequester, 'status'), field(seenByRequester, 'decline_reason'), field(seenByRequester, 'decided_by')], ['declined', 'we have the remaster on vinyl', 'alice']);
      assert.match(String(field(seenByRequester, 'status_text')), /we have the remaster on vinyl/);
    });

    it('never lets a client-sent Remote-User reach the service as identity', async () => {
      const bob = jsonOf(await via(SITE, '/api/v1/auth/info', { ...json, ...FORGED, cookie: 'authelia_session=bob-2fa' }));
      assert.deepEqual(field(bob, 'user'), { name: 'bob', display_name: 'Bob', email: 'bob@example.com', groups: ['music'], role: 'approver', scopes: ['read', 'request', 'decide'] });
      const carol = jsonOf(await via(SITE, '/api/v1/auth/info', { ...json, ...FORGED, cookie: 'authelia_session=carol-2fa' }));
      assert.deepEqual(field(carol, 'user'), { name: 'carol', display_name: 'Carol', groups: [], scopes: [] }, 'an empty Remote-Groups answer is not filled in from the client');
      const dora = jsonOf(await via(SITE, '/api/v1/auth/info', { ...FORGED, ...signedIn('dora-2fa') }));
      assert.deepEqual(field(dora, 'user'), { name: 'dora', display_name: 'Dora', groups: ['music-family'], role: 'requester', scopes: ['request'] }, 'a requester stays one');
      assert.equal((await via(SITE, '/api/v1/queue/pending', { ...FORGED, ...signedIn('dora-2fa') })).status, 403);
      const health = await via(SITE, '/health', FORGED);
      assert.equal(health.status, 200);
      const anonymous = jsonOf(await via(API_SITE, '/api/v1/auth/info', { ...json, ...FORGED }));
      assert.equal(field(anonymous, 'authenticated'), false);
      assert.equal((await via(API_SITE, '/api/v1/queue/pending', { ...json, ...FORGED })).status, 401);
    });

    it('lets Node-RED in with its API key on the API name, without forward auth', async () => {
      const response = await via(API_SITE, '/api/v1/queue/pending', { ...json, 'x-api-key': NODE_RED_KEY });
      assert.equal(response.status, 200);
      const info = jsonOf(await via(API_SITE, '/api/v1/auth/info', { ...json, authorization: `Bearer ${NODE_RED_KEY}` }));
      assert.deepEqual(field(info, 'user'), { name: 'node-red', groups: [], role: 'approver', scopes: ['read', 'request', 'decide'] });
    });

    it('lets a decision link through without a session: its page shows, and posting its form decides as "link"', async () => {
      const item = await rawRequest(`https://127.0.0.1:${port}/api/v1/queue`, {
        method: 'POST',
        servername: API_SITE,
        headers: { host: `${API_SITE}:${port}`, 'content-type': 'application/json', ...json, 'x-api-key': NODE_RED_KEY },
        body: JSON.stringify({ artist: 'Broadcast', album: 'Tender Buttons' }),
      });
      assert.equal(item.status, 201, item.text);
      const id = String(field(list(field(jsonOf(item), 'items'))[0], 'id'));
      const link = d.app.crateflow.container.resolve(DecisionLinkService).issue(id, 'test');
      await link.saved;
      assert.ok(link.url.startsWith('https://music.example.com/decide/'), link.url);
      const path = new URL(link.url).pathname;
      const shown = await via(SITE, path, { ...page, ...FORGED });
      assert.equal(shown.status, 200, 'no portal redirect for a decision link');
      assert.match(shown.text, /Tender Buttons/);
      const decided = await rawRequest(`https://127.0.0.1:${port}${path}`, {
        method: 'POST',
        servername: SITE,
        headers: { host: `${SITE}:${port}`, origin: `https://${SITE}:${port}`, 'content-type': 'application/x-www-form-urlencoded', ...page, ...FORGED },
        body: 'action=approve',
      });
      assert.equal(decided.status, 200, decided.text);
      assert.match(decided.text, /Approved by link \(test\)/, 'decided as the link, not as the forged Remote-User');
      assert.equal((await via(SITE, path, page)).status, 410, 'and only once');
    });

    it('refuses Remote-User sent straight to the service port from an address outside trusted_proxies', async () => {
      const direct = await rawRequest(`http://127.0.0.1:${d.app.port}/api/v1/queue/pending`, { localAddress: '127.0.0.2', headers: { ...json, ...FORGED } });
      assert.equal(direct.status, 401);
      assert.match(String(direct.headers['content-type']), /^application\/problem\+json/);
      const info = jsonOf(await rawRequest(`http://127.0.0.1:${d.app.port}/api/v1/auth/info`, { localAddress: '127.0.0.2', headers: { ...json, ...FORGED } }));
      assert.equal(field(info, 'authenticated'), false);
    });
  });
}
