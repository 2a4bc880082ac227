import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { createLogger } from '../../../core/logging/create-logger.js';
import { startApp, type StartedApp } from '../../helpers/start-app.js';

// A library URL carrying every kind of secret people put in URLs, pointing at a port nothing listens on, so the
// plugin fails and quotes its URL in the error.
const PASSWORD = 'hunter2-in-url';
const QUERY_TOKEN = 'query-token-7f3a9c';
const LIBRARY_URL = `http://admin:${PASSWORD}@127.0.0.1:9/navidrome?token=${QUERY_TOKEN}`;

describe('secrets in /health and the logs', () => {
  let app: StartedApp;
  let logs = '';
  let health = '';

  before(async () => {
    const out = new PassThrough();
    out.on('data', (chunk: Buffer) => (logs += chunk.toString('utf8')));
    app = await startApp({ log: createLogger('debug', out), config: { library: { type: 'subsonic', url: LIBRARY_URL, username: 'u', password: 'p' } } });
    const sync = await fetch(`${app.baseUrl}/api/v1/library/sync`, { method: 'POST' });
    assert.equal(sync.status, 202);
    for (const until = Date.now() + 10_000; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 50))) {
      health = await (await fetch(`${app.baseUrl}/health`)).text();
      if (health.includes('library-subsonic')) break;
    }
  });
  after(() => app.close());

  it('reports the failing plugin on /health without its URL, credentials or internal address', () => {
    assert.match(health, /"status":"degraded"/);
    assert.match(health, /"name":"library-subsonic"/, health);
    for (const secret of [PASSWORD, QUERY_TOKEN, 'admin:', '127.0.0.1', 'navidrome']) assert.ok(!health.includes(secret), `${secret} in ${health}`);
    assert.match(health, /Subsonic server at <url> is unreachable/);
  });

  it('logs the failure with scheme, host and a hint of the URL, never its credentials or token', () => {
    const lines = logs.split('\n').filter((line) => line.includes('library-subsonic') || line.includes('Subsonic'));
    assert.ok(lines.length > 0, 'the failure is logged');
    for (const secret of [PASSWORD, QUERY_TOKEN, 'admin:']) assert.ok(!logs.includes(secret), `${secret} reached the log`);
    assert.match(logs, /http:\/\/127\.0\.0\.1:9\/…/, 'the operator still sees which host failed');
  });
});
