import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { ConfigError } from '../../../core/config/config-error.js';
import { jsonOf, rawRequest, type RawResponse } from '../../helpers/raw-request.js';
import { startApp, type StartedApp } from '../../helpers/start-app.js';

// DNS rebinding: a page on rebind.attacker.example re-points its name at 127.0.0.1; for the browser it is then
// same-origin with the API (it may read answers and send any header), but the Host header still names the
// attacker's domain. Every app here listens on '::' so the IPv6 loopback can be asked too.

async function start(t: TestContext, config: Record<string, unknown> = {}): Promise<StartedApp> {
  const app = await startApp({ config: { server: { host: '::', ...config } } });
  t.after(() => app.close());
  return app;
}

const get = (app: StartedApp, path: string, host: string, via = '127.0.0.1'): Promise<RawResponse> =>
  rawRequest(`http://${via}:${app.port}${path}`, { headers: { host, accept: 'application/json' } });

function problemField(response: RawResponse): unknown {
  const body = jsonOf(response);
  return body && typeof body === 'object' && 'errors' in body && Array.isArray(body.errors) ? body.errors[0] : undefined;
}

describe('Host check (DNS rebinding)', () => {
  it('refuses a rebound name with 421 problem+json naming headers.host, for reads and writes, with auth disabled', async (t) => {
    const app = await start(t);
    const read = await get(app, '/api/v1/queue/pending', `rebind.attacker.example:${app.port}`);
    assert.equal(read.status, 421);
    assert.match(String(read.headers['content-type']), /^application\/problem\+json/);
    assert.deepEqual(problemField(read), { path: 'headers.host', message: 'must be localhost, an IP address, server.host or one of server.allowed_hosts' });
    const write = await rawRequest(`http://127.0.0.1:${app.port}/api/v1/queue`, {
      method: 'POST',
      headers: { host: `rebind.attacker.example:${app.port}`, origin: `http://rebind.attacker.example:${app.port}`, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
      body: JSON.stringify({ artist: 'Rebound', album: 'Write' }),
    });
    assert.equal(write.status, 421);
    const pending = jsonOf(await get(app, '/api/v1/queue/pending', `127.0.0.1:${app.port}`));
    assert.deepEqual(pending && typeof pending === 'object' && 'total' in pending ? pending.total : undefined, 0, 'nothing was queued');
    assert.equal((await get(app, '/', `rebind.attacker.example:${app.port}`)).status, 421, 'the UI pages too');
  });

  it('accepts localhost, IPv4 and bracketed IPv6 literals, with or without a port, in any case', async (t) => {
    const app = await start(t);
    for (const host of [`localhost:${app.port}`, 'LOCALHOST', `127.0.0.1:${app.port}`, `[::1]:${app.port}`, '[::1]', `192.168.1.20:${app.port}`, 'localhost.']) {
      assert.equal((await get(app, '/api/v1/queue/pending', host)).status, 200, host);
    }
    assert.equal((await get(app, '/api/v1/queue/pending', `[::1]:${app.port}`, '[::1]')).status, 200, 'over IPv6 loopback');
  });

  it('accepts the names in server.allowed_hosts whatever port the reverse proxy passes on', async (t) => {
    const app = await start(t, { allowed_hosts: ['music.example.com', 'Music-API.example.com'] });
    for (const host of ['music.example.com', 'music.example.com:443', 'music.example.com:8443', 'music-api.example.com']) {
      assert.equal((await get(app, '/api/v1/queue/pending', host)).status, 200, host);
    }
    assert.equal((await get(app, '/api/v1/queue/pending', 'evil.music.example.com')).status, 421, 'no implicit subdomains');
    assert.equal((await get(app, '/api/v1/queue/pending', 'music.example.com.evil.example')).status, 421);
  });

  it('accepts an internationalised name written in Unicode in allowed_hosts, as browsers send it (punycode)', async (t) => {
    const app = await start(t, { allowed_hosts: ['musique.été.example'] });
    assert.equal((await get(app, '/api/v1/queue/pending', 'musique.xn--t-9fab.example')).status, 200);
  });

  it('grants no CORS preflight, so a page of another origin cannot add Remote-User to a request to the loopback proxy address', async (t) => {
    const app = await startApp({ config: { ui: { auth: { enabled: true, type: 'proxy' } } } });
    t.after(() => app.close());
    const preflight = await rawRequest(`${app.baseUrl}/api/v1/queue`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'remote-user,content-type' },
    });
    assert.equal(preflight.headers['access-control-allow-origin'], undefined);
    assert.equal(preflight.headers['access-control-allow-headers'], undefined);
  });

  it('accepts server.host when it is a name', async (t) => {
    const app = await startApp({ config: { server: { host: 'localhost' } } });
    t.after(() => app.close());
    assert.equal((await get(app, '/api/v1/queue/pending', 'localhost')).status, 200);
    assert.equal((await get(app, '/api/v1/queue/pending', 'crateflow.lan')).status, 421);
  });

  it('refuses malformed Host values (userinfo, paths, spaces, bad ports)', async (t) => {
    const app = await start(t);
    for (const host of ['localhost@evil.example', 'evil.example/localhost', 'localhost:99999', 'localhost evil.example']) {
      assert.equal((await get(app, '/api/v1/queue/pending', host)).status, 421, JSON.stringify(host));
    }
  });

  it('keeps GET /health open to every Host, as Docker and orchestrators probe it by container name', async (t) => {
    const app = await start(t);
    assert.equal((await get(app, '/health', 'crateflow:8080')).status, 200);
    assert.equal((await get(app, '/health', 'rebind.attacker.example')).status, 200);
  });

  it('refuses a rebound name carrying Remote-User from the trusted loopback proxy in proxy mode', async (t) => {
    const app = await startApp({ config: { server: { host: '::' }, ui: { auth: { enabled: true, type: 'proxy' } } } });
    t.after(() => app.close());
    const answer = await rawRequest(`http://127.0.0.1:${app.port}/api/v1/plugins`, { headers: { host: `rebind.attacker.example:${app.port}`, 'remote-user': 'admin' } });
    assert.equal(answer.status, 421);
  });

  it('refuses to start with an allowed_hosts entry that is not a bare host name, naming it', async () => {
    await assert.rejects(
      startApp({ config: { server: { allowed_hosts: ['music.example.com', 'https://music.example.com', 'music.example.com:443'] } } }),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.problems.map((p) => p.path).join() === 'server.allowed_hosts[1],server.allowed_hosts[2]' &&
        err.problems.every((p) => p.message.includes('without scheme, port or path')),
    );
  });
});
