import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hashSecret } from '@crateflow/sdk';
import { rawRequest, type RawResponse } from '../helpers/raw-request.js';
import { routesOf } from './openapi-routes.js';
import { SERVICE_CHILD, freePort, killAllServiceProcesses, startServiceProcess, type ServiceProcess } from './service-process.js';
import { ms, percentile, printReport } from './statistics.js';
import { writeServiceConfig } from './write-service-config.js';

// Issue #16, points 1, 5 and 6: what an attacker found, replayed against the real service in a child process
// (its own libuv thread pool, as in production) in basic mode with password_hash and key_hash, the slow case.
// - DNS rebinding: every route asked with a rebound Host name;
// - cross-site writes: every state-changing route posted by another site's page, with the operator's Basic
//   credentials attached as a browser would;
// - guessing: 200 concurrent wrong passwords from one address, then a flood of wrong passwords from 300
//   addresses while a write and /health are timed;
// - a NAT address locked out by wrong passwords still using a correct hashed API key; revoking sessions.
// Sizing: one service start (~2 s), about 1,000 requests, of which ~30 reach scrypt; under 30 s on 2 cores.

const PASSWORD = 'correct horse battery staple';
const WRITER_KEY = 'writer-key-plain-0123456789abcdef';
const HASHED_KEY = 'hashed-key-0123456789abcdef';
const basic = (password: string) => `Basic ${Buffer.from(`admin:${password}`).toString('base64')}`;

describe('auth attacks against a service process', () => {
  let dir = '';
  let service: ServiceProcess | undefined;
  const url = (path: string) => `${service?.baseUrl ?? ''}${path}`;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'crateflow-auth-attacks-'));
    const port = await freePort();
    const config = await writeServiceConfig(dir, port, {
      // Room for the 300-connection flood below, the write and the probe: past server.max_connections (default 256)
      // the service closes a connection at once, which the flood would read as a reset, not as the guessing limit.
      server: { allowed_hosts: ['music.example.com'], max_connections: 512 },
      ui: {
        auth: {
          enabled: true, type: 'basic', username: 'admin', password_hash: await hashSecret(PASSWORD),
          api_keys: [{ name: 'writer', key: WRITER_KEY, role: 'approver' }, { name: 'hashed', key_hash: await hashSecret(HASHED_KEY), role: 'viewer' }],
        },
      },
    });
    service = await startServiceProcess({ script: SERVICE_CHILD, args: ['--config', config], port });
  });
  after(async () => {
    await killAllServiceProcesses();
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses DNS rebinding on every route and cross-site writes on every state-changing route', async () => {
    const routes = routesOf(JSON.parse((await rawRequest(url('/api/v1/openapi.json'))).text));
    const pathOf = (template: string) => template.replace(/\{[^}]+\}/g, 'unknown_id');
    const rebound: RawResponse[] = [];
    for (const route of routes) {
      rebound.push(await rawRequest(url(pathOf(route.template)), { method: route.method, headers: { host: `rebind.attacker.example:${service?.port}`, authorization: basic(PASSWORD) } }));
    }
    const writes = routes.filter((r) => r.method !== 'GET');
    const variants: Record<string, Record<string, string>> = {
      'Origin of another site': { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      'Sec-Fetch-Site: cross-site': { 'sec-fetch-site': 'cross-site', 'content-type': 'text/plain' },
      'old browser: form, no Origin': { 'content-type': 'application/x-www-form-urlencoded' },
    };
    const crossSite = new Map<string, number[]>();
    const leaks: string[] = [];
    for (const [variant, headers] of Object.entries(variants)) {
      const statuses: number[] = [];
      for (const route of writes) {
        const answer = await rawRequest(url(pathOf(route.template)), { method: route.method, headers: { ...headers, authorization: basic(PASSWORD) }, body: 'artist=x' });
        statuses.push(answer.status);
        if (answer.status < 400) leaks.push(`${variant}: ${route.label} → ${answer.status}`);
      }
      crossSite.set(variant, statuses);
    }
    const accepted = await rawRequest(url('/api/v1/queue/pending'), { headers: { host: 'music.example.com:443', authorization: basic(PASSWORD) } });
    const health = await rawRequest(url('/health'), { headers: { host: 'crateflow:8080' } });
    const summary = (statuses: readonly number[]) => [...new Set(statuses)].sort().map((s) => `${s}×${statuses.filter((x) => x === s).length}`).join(' ');
    printReport('auth attacks — DNS rebinding and cross-site writes', [
      ['rebound Host, every route', `${rebound.length} requests → ${summary(rebound.map((r) => r.status))}`],
      ...[...crossSite].map(([variant, statuses]): [string, string] => [`cross-site: ${variant}`, `${statuses.length} state-changing routes → ${summary(statuses)}`]),
      ['Host music.example.com:443 (allowed_hosts)', accepted.status],
      ['GET /health, Host crateflow:8080', health.status],
    ]);
    assert.ok(rebound.every((r) => r.status === 421), 'every rebound request is refused with 421');
    assert.deepEqual(leaks, [], 'no cross-site write reaches a handler');
    assert.equal(accepted.status, 200);
    assert.equal(health.status, 200);
  });

  it('keeps the failed-login limit under concurrency and keeps writes and /health answering through a guessing flood', async () => {
    const burst = await Promise.all(Array.from({ length: 200 }, () => rawRequest(url('/api/v1/plugins'), { headers: { authorization: basic('wrong guess') } })));
    const evaluated = burst.filter((r) => r.status === 401).length;

    let flooding = true;
    const healthMs: number[] = [];
    const probe = (async () => {
      while (flooding) {
        const started = performance.now();
        const answer = await rawRequest(url('/health'));
        assert.equal(answer.status, 200);
        healthMs.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    probe.catch(() => undefined); // awaited after the flood, like it
    const floodStarted = performance.now();
    const flood = Promise.all(
      Array.from({ length: 300 }, (_, i) => rawRequest(url('/api/v1/plugins'), { headers: { authorization: basic(`guess ${i}`), 'x-forwarded-for': `10.2.${Math.floor(i / 250)}.${i % 250}` } })),
    );
    // Awaited below, after the write: a failed request must not surface earlier as an unhandled rejection.
    flood.catch(() => undefined);
    // Let the flood's 300 connections be accepted first: the write then waits only for what the guesses hold.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const writeStarted = performance.now();
    const write = await rawRequest(url('/api/v1/queue'), {
      method: 'POST',
      headers: { 'x-api-key': WRITER_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ artist: 'Flood', album: 'Written Anyway' }),
    });
    const writeMs = performance.now() - writeStarted;
    const floodAnswers = await flood;
    const floodMs = performance.now() - floodStarted;
    flooding = false;
    await probe;
    const floodStatuses = new Map<number, number>();
    for (const answer of floodAnswers) floodStatuses.set(answer.status, (floodStatuses.get(answer.status) ?? 0) + 1);

    for (let i = 0; i < 10; i++) await rawRequest(url('/api/v1/plugins'), { localAddress: '127.0.0.9', headers: { authorization: basic('wrong') } });
    const lockedOut = await rawRequest(url('/api/v1/plugins'), { localAddress: '127.0.0.9', headers: { authorization: basic('wrong') } });
    const keyFromLockedOut = await rawRequest(url('/api/v1/plugins'), { localAddress: '127.0.0.9', headers: { authorization: `Bearer ${HASHED_KEY}` } });

    printReport('auth attacks — guessing passwords', [
      ['200 concurrent wrong passwords, one address', `${evaluated} evaluated (limit 10), ${burst.filter((r) => r.status === 429).length} refused with 429`],
      ['300 concurrent wrong passwords, 300 addresses', `${[...floodStatuses].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}×${n}`).join(' ')} in ${ms(floodMs)}`],
      ['a write during the flood', `${write.status} in ${ms(writeMs)}`],
      ['/health during the flood', `${healthMs.length} probes, median ${ms(percentile(healthMs, 50))}, max ${ms(Math.max(...healthMs))}`],
      ['locked-out address, correct hashed API key', `${lockedOut.status} for a password, ${keyFromLockedOut.status} for the key`],
    ]);
    assert.equal(evaluated, 10);
    assert.deepEqual([...floodStatuses.keys()].filter((s) => s !== 401 && s !== 429), [], 'only 401 and 429 in the flood');
    assert.equal(write.status, 201, write.text);
    // Unbounded, 300 scrypt runs held libuv's 4 threads for 20 s and more, and the write's fsync waited behind them.
    assert.ok(writeMs < 5000, `a write took ${ms(writeMs)} during the flood`);
    assert.ok(Math.max(...healthMs) < 3000, `/health took up to ${ms(Math.max(...healthMs))} during the flood`);
    assert.equal(lockedOut.status, 429);
    assert.equal(keyFromLockedOut.status, 200);
  });

  it('ends every session on POST /api/v1/auth/sessions/revoke', async () => {
    const login = async () => {
      const answer = await rawRequest(url('/api/v1/auth/login'), { method: 'POST', localAddress: '127.0.0.10', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: PASSWORD }) });
      assert.equal(answer.status, 200, answer.text);
      return String(answer.headers['set-cookie']?.[0] ?? '').split(';')[0] ?? '';
    };
    const sessions = [await login(), await login(), await login()];
    // From an address of its own: 127.0.0.1 is still locked out by the guessing test.
    const revoked = await rawRequest(url('/api/v1/auth/sessions/revoke'), { method: 'POST', localAddress: '127.0.0.10', headers: { authorization: basic(PASSWORD) } });
    const after = await Promise.all(sessions.map((cookie) => rawRequest(url('/api/v1/plugins'), { localAddress: '127.0.0.10', headers: { cookie } })));
    printReport('auth attacks — revoking sessions', [
      ['POST /api/v1/auth/sessions/revoke', `${revoked.status} ${revoked.text}`],
      ['the 3 sessions afterwards', after.map((a) => a.status).join(' ')],
    ]);
    assert.equal(revoked.status, 200);
    assert.ok(after.every((a) => a.status === 401));
  });
});
