import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, it, type TestContext } from 'node:test';
import { jsonOf, rawRequest, type RawResponse } from '../../helpers/raw-request.js';
import { startApp, type StartedApp } from '../../helpers/start-app.js';

// Cross-site request forgery against every auth mode: another site's page makes the operator's browser send
// a state-changing request. Body-less POST routes (library sync, approve by id, retry, logout) were the gap:
// a plain HTML form reaches them without any preflight.

async function start(t: TestContext, auth: Record<string, unknown>): Promise<StartedApp> {
  const app = await startApp({ config: { ui: { auth } } });
  t.after(() => app.close());
  return app;
}

const sync = (app: StartedApp, headers: Record<string, string>, body?: string): Promise<RawResponse> =>
  rawRequest(`http://127.0.0.1:${app.port}/api/v1/library/sync`, { method: 'POST', headers, ...(body === undefined ? {} : { body }) });

function detailOf(response: RawResponse): string {
  const body = jsonOf(response);
  return body && typeof body === 'object' && 'detail' in body && typeof body.detail === 'string' ? body.detail : '';
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('cross-site writes', () => {
  it('refuses a cross-site form POST to a body-less route with auth disabled (Origin, or Sec-Fetch-Site alone)', async (t) => {
    const app = await start(t, { enabled: false });
    const byOrigin = await sync(app, { ...FORM, origin: 'https://evil.example' }, '');
    assert.equal(byOrigin.status, 403);
    assert.match(detailOf(byOrigin), /https:\/\/evil\.example cannot change anything here/);
    assert.doesNotMatch(detailOf(byOrigin), /cookie/);
    assert.equal((await sync(app, { 'sec-fetch-site': 'cross-site' })).status, 403);
    assert.equal((await sync(app, { 'sec-fetch-site': 'same-site' })).status, 403, 'a sibling subdomain is another site too');
    assert.equal((await sync(app, { origin: 'null' })).status, 403, 'a sandboxed page sends Origin: null');
    assert.equal((await sync(app, { referer: 'https://evil.example/page' })).status, 403);
  });

  it('refuses a form content type on a body-less route when no Origin says where it came from (an old browser)', async (t) => {
    const app = await start(t, { enabled: false });
    for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'text/plain']) {
      const answer = await sync(app, { 'content-type': type }, '');
      assert.equal(answer.status, 400, type);
      const body = jsonOf(answer);
      assert.ok(body && typeof body === 'object' && 'errors' in body && JSON.stringify(body.errors).includes('headers.content-type'), type);
    }
  });

  it('lets scripts, curl and Node-RED (no Origin, no content type or JSON) and same-site pages change things', async (t) => {
    const app = await start(t, { enabled: false });
    assert.equal((await sync(app, {})).status, 202, 'curl -X POST');
    assert.equal((await sync(app, { 'content-type': 'application/json' }, '')).status, 202);
    assert.match(await postWithoutLength(app.port, '/api/v1/library/sync', 'application/json'), /^HTTP\/1\.1 202 /, 'labelled JSON, no body and no Content-Length (wrk, some HTTP libraries)');
    assert.equal((await sync(app, { origin: `http://127.0.0.1:${app.port}`, 'sec-fetch-site': 'same-origin' })).status, 202, 'the UI');
    assert.equal((await sync(app, { 'sec-fetch-site': 'none' })).status, 202, "the user's own action");
  });

  it('words the refusal per mode: proxy mode speaks of the forward-auth sign-in, never of a session cookie', async (t) => {
    const proxy = await start(t, { enabled: true, type: 'proxy' });
    const refused = await sync(proxy, { origin: 'https://evil.example', 'remote-user': 'alice' });
    assert.equal(refused.status, 403);
    assert.match(detailOf(refused), /forward-auth proxy/);
    assert.doesNotMatch(detailOf(refused), /cookie/);
    const basic = await start(t, { enabled: true, type: 'basic', username: 'admin', password: 'correct horse battery' });
    assert.match(detailOf(await sync(basic, { origin: 'https://evil.example' })), /session cookie/);
  });

  it('refuses cross-site writes before checking credentials, so they cost no password check', async (t) => {
    const app = await start(t, { enabled: true, type: 'basic', username: 'admin', password: 'correct horse battery' });
    const basic = `Basic ${Buffer.from('admin:wrong').toString('base64')}`;
    for (let i = 0; i < 12; i++) assert.equal((await sync(app, { origin: 'https://evil.example', authorization: basic })).status, 403);
    assert.equal((await sync(app, { authorization: `Basic ${Buffer.from('admin:correct horse battery').toString('base64')}` })).status, 202, 'no failed login was counted');
  });
});

/** A POST with a Content-Type but neither Content-Length nor a body, as wrk sends it; the status line answered. */
function postWithoutLength(port: number, path: string, type: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: ${type}\r\nConnection: close\r\n\r\n`));
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve(answer.split('\r\n')[0] ?? ''));
    socket.on('error', reject);
  });
}
