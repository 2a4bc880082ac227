import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { api } from '../../helpers/api-client.js';
import { startApp, type StartedApp } from '../../helpers/start-app.js';

/** Sends raw bytes, for inputs fetch() would refuse to produce. */
function rawRequest(port: number, method: string, path: string, headers: Record<string, string>, body?: Buffer | string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('HTTP errors as problem+json', () => {
  let app: StartedApp;
  before(async () => {
    app = await startApp();
  });
  after(() => app.close());

  it('answers malformed JSON with 400', async () => {
    const res = await rawRequest(app.port, 'POST', '/api/v1/queue', { 'content-type': 'application/json' }, '{"artist": "Low",');
    assert.equal(res.status, 400);
    assert.match(res.type, /^application\/problem\+json/);
    const problem = JSON.parse(res.body);
    assert.equal(problem.status, 400);
    assert.match(problem.detail, /not valid JSON|invalid JSON/);
  });

  it('answers a wrong field type with 400 naming the field', async () => {
    const res = await api<{ errors: { path: string; message: string }[]; detail: string }>(app.baseUrl, 'POST', '/api/v1/queue', { artist: 'Low', year: 'nineteen' });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.errors, [{ path: 'body.year', message: 'must be an integer' }]);
    assert.match(res.body.detail, /body\.year/);
  });

  it('answers a bad query parameter with 400 naming it', async () => {
    const res = await api<{ errors: { path: string }[] }>(app.baseUrl, 'GET', '/api/v1/queue/pending?limit=501');
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0]?.path, 'query.limit');
  });

  it('answers an unknown route with 404', async () => {
    const res = await api<{ status: number; type: string }>(app.baseUrl, 'GET', '/api/v1/nope');
    assert.equal(res.status, 404);
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
    assert.equal(res.body.type, 'urn:crateflow:problem:not-found');
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const res = await api(app.baseUrl, 'DELETE', '/api/v1/queue/pending');
    assert.equal(res.status, 405);
    assert.match(res.headers.get('allow') ?? '', /GET/);
    assert.match(res.headers.get('content-type') ?? '', /problem\+json/);
  });

  it('answers a body over 1 MiB with 413', async () => {
    const big = JSON.stringify({ artist: 'x'.repeat(1024 * 1024 + 10) });
    const res = await rawRequest(app.port, 'POST', '/api/v1/queue', { 'content-type': 'application/json' }, big);
    assert.equal(res.status, 413);
    assert.match(res.type, /problem\+json/);
  });

  it('answers a body that is not JSON with 415', async () => {
    const res = await rawRequest(app.port, 'POST', '/api/v1/queue', { 'content-type': 'text/plain' }, 'artist=Low');
    assert.equal(res.status, 415);
  });

  it('never includes a stack trace or an internal message in any answer', async () => {
    for (const res of [
      await rawRequest(app.port, 'POST', '/api/v1/queue', { 'content-type': 'application/json' }, '{'),
      await rawRequest(app.port, 'POST', '/api/v1/queue/%E0%A4%A/approve', {}),
    ]) {
      assert.doesNotMatch(res.body, /\bat [\w.<>]+ \(|node_modules|\.ts:\d+/);
    }
  });

  it('serves /health without credentials and never redirects', async () => {
    const res = await fetch(`${app.baseUrl}/health`, { redirect: 'manual' });
    assert.equal(res.status, 200);
    const body: unknown = await res.json();
    assert.ok(body && typeof body === 'object' && 'status' in body && 'uptime_s' in body);
    assert.equal(body.status, 'ok');
    assert.equal(typeof body.uptime_s, 'number');
  });
});
