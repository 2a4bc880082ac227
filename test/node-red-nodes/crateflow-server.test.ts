import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { buildNodePackage } from './build-node-package.js';
import { startFakeCrateflowApi, type FakeCrateflowApi } from './fake-crateflow-api.js';
import { NodeRedTestHelper, nextEvent, type FlowNode, type LoadedFlow } from './node-red-test-helper.js';

const API_KEY = 'key-for-node-red';
let workDir: string;
let helper: NodeRedTestHelper;
let api: FakeCrateflowApi;

before(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'crateflow-nr-server-'));
  helper = new NodeRedTestHelper(await buildNodePackage(join(workDir, 'package')));
  await helper.start();
});
after(async () => {
  await helper.stop();
  await rm(workDir, { recursive: true, force: true });
});
beforeEach(async () => {
  api = await startFakeCrateflowApi(API_KEY);
});
afterEach(async () => {
  await helper.unload();
  await api.close();
});

function loadServer(config: Record<string, unknown> = {}, credentials: Record<string, string> = { apiKey: API_KEY }): Promise<LoadedFlow> {
  const flow: FlowNode[] = [
    { id: 's1', type: 'crateflow-server', url: api.url, ...config },
    { id: 'q1', type: 'crateflow-queue', server: 's1', operation: 'list', wires: [['out']] },
    { id: 'out', type: 'helper' },
  ];
  return helper.load(['crateflow-server', 'crateflow-queue'], flow, { s1: credentials });
}

async function testConnection(flow: LoadedFlow, form: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${flow.httpAdminUrl}/crateflow-server/test`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(form),
  });
  const body: unknown = await response.json();
  assert.ok(typeof body === 'object' && body !== null && !Array.isArray(body), `answer is not an object: ${JSON.stringify(body)}`);
  return { status: response.status, body: { ...body } };
}

describe('crateflow-server test connection (POST <admin>/crateflow-server/test)', () => {
  it('answers with GET /api/v1/auth/info, called with the API key typed in the form', async () => {
    const flow = await loadServer({}, {});
    const answer = await testConnection(flow, { id: 's1', url: api.url, apiKey: API_KEY, rejectUnauthorized: true });
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, {
      ok: true,
      status_code: 200,
      auth_info: { enabled: true, type: 'basic', authenticated: true, user: { name: 'node-red', groups: [] } },
    });
    assert.equal(api.received.at(-1)?.path, '/api/v1/auth/info');
  });

  it('uses the stored API key when the form sends the editor\'s password placeholder', async () => {
    const flow = await loadServer();
    const answer = await testConnection(flow, { id: 's1', url: api.url, apiKey: '__PWRD__' });
    assert.equal(Reflect.get(Object(answer.body.auth_info), 'authenticated'), true);
    assert.equal(api.received.at(-1)?.headers.authorization, `Bearer ${API_KEY}`);
  });

  it('reports a key the server does not accept', async () => {
    const flow = await loadServer();
    const answer = await testConnection(flow, { id: 's1', url: api.url, apiKey: 'typo' });
    assert.equal(Reflect.get(Object(answer.body.auth_info), 'authenticated'), false);
  });

  it('reports an unreachable server as not ok', async () => {
    const flow = await loadServer();
    await api.close();
    const answer = await testConnection(flow, { id: 's1', url: api.url });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.ok, false);
    assert.match(String(answer.body.error), /ECONNREFUSED/);
  });

  it('tests ${CRATEFLOW_URL} against the address the deployed config node resolved it to', async () => {
    const flow = await loadServer();
    const answer = await testConnection(flow, { id: 's1', url: '${CRATEFLOW_URL}', apiKey: '__PWRD__' });
    assert.equal(answer.body.ok, true, JSON.stringify(answer.body));
    assert.equal(api.received.at(-1)?.path, '/api/v1/auth/info');
  });

  it('explains that ${NAME} resolves at deploy when the config node is not deployed yet', async () => {
    const flow = await loadServer();
    const answer = await testConnection(flow, { id: 'not-deployed', url: '${CRATEFLOW_TEST_UNSET_VARIABLE}' });
    assert.equal(answer.body.ok, false);
    assert.match(String(answer.body.error), /^url: \$\{CRATEFLOW_TEST_UNSET_VARIABLE\} is filled in .* when the flow is deployed; deploy, then test again/);
    assert.equal(api.received.length, 0);
  });

  it('refuses a URL that is not http or https without calling anything', async () => {
    const flow = await loadServer();
    const answer = await testConnection(flow, { id: 's1', url: 'file:///etc/passwd' });
    assert.deepEqual(answer.body, { ok: false, error: 'url: must be an http:// or https:// address' });
    assert.equal(api.received.length, 0);
  });
});

describe('crateflow-server TLS', () => {
  let certDir: string;
  let ca: string;
  let httpsServer: Server;
  let httpsUrl: string;

  before(async () => {
    certDir = await mkdtemp(join(tmpdir(), 'crateflow-nr-tls-'));
    // A self-signed certificate for 127.0.0.1: it is its own CA.
    await promisify(execFile)('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(certDir, 'key.pem'), '-out', join(certDir, 'cert.pem'),
    ]);
    ca = await readFile(join(certDir, 'cert.pem'), 'utf8');
    httpsServer = createServer({ key: await readFile(join(certDir, 'key.pem')), cert: ca }, (req, res) => {
      const body = req.url?.startsWith('/api/v1/queue/pending')
        ? { items: [], total: 0, limit: 50, offset: 0 }
        : { enabled: false, type: 'disabled', authenticated: false, user: null };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => httpsServer.listen(0, '127.0.0.1', resolve));
    const address: AddressInfo | string | null = httpsServer.address();
    if (address === null || typeof address === 'string') throw new Error('https stand-in has no TCP address');
    httpsUrl = `https://127.0.0.1:${address.port}`;
  });
  after(async () => {
    httpsServer.closeAllConnections();
    await new Promise((resolve) => httpsServer.close(resolve));
    await rm(certDir, { recursive: true, force: true });
  });

  it('trusts an https server whose certificate is signed by the given CA', async () => {
    const flow = await loadServer();
    const answer = await testConnection(flow, { url: httpsUrl, ca, rejectUnauthorized: true });
    assert.equal(answer.body.ok, true);
  });

  it('refuses an unknown certificate unless verification is turned off', async () => {
    const flow = await loadServer();
    const refused = await testConnection(flow, { url: httpsUrl, rejectUnauthorized: true });
    assert.equal(refused.body.ok, false);
    assert.match(String(refused.body.error), /self[- ]signed/i);
    const insecure = await testConnection(flow, { url: httpsUrl, rejectUnauthorized: false });
    assert.equal(insecure.body.ok, true);
  });

  it('applies the config node\'s CA to the calls of the queue node', async () => {
    const flow = await loadServer({ url: httpsUrl, ca, rejectUnauthorized: true });
    const output = nextEvent<Record<string, unknown>>(flow.getNode('out'), 'input');
    flow.getNode('q1').receive({ payload: {} });
    assert.deepEqual((await output).payload, { items: [], total: 0, limit: 50, offset: 0 });
  });
});
