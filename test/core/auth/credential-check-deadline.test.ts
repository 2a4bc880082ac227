import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { describe, it, type TestContext } from 'node:test';
import Koa from 'koa';
import { systemClock, type AuthProvider } from '@crateflow/sdk';
import { AppConfig } from '../../../core/config/app-config.schema.js';
import { DefaultAuthenticator } from '../../../core/auth/default-authenticator.js';
import { problemDetails } from '../../../core/http/problem-middleware.js';
import type { LoadedPluginOf } from '../../../core/plugins/plugin-host.js';
import { compileStrict } from '../../../core/schema/ajv.js';
import { createLogger } from '../../../core/logging/create-logger.js';


const validateConfig = compileStrict<AppConfig>(AppConfig);

/** An auth plugin whose credential check never answers, as a plugin stuck on a lock or a starved hash would. */
function hangingAuthPlugin(): LoadedPluginOf<'auth'> {
  const instance: AuthProvider = {
    type: 'basic',
    authenticate: () => new Promise(() => undefined),
  };
  return { name: 'hanging-auth', kind: 'auth', instance } as unknown as LoadedPluginOf<'auth'>;
}

async function serve(t: TestContext, authenticator: DefaultAuthenticator): Promise<string> {
  const app = new Koa();
  app.silent = true;
  app.use(problemDetails());
  app.use(async (ctx) => {
    const identity = await authenticator.identify(ctx);
    ctx.body = { name: identity?.name ?? null };
  });
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('a credential check past its deadline', () => {
  it('is answered 503 plugin-unavailable with Retry-After, not 500 (real time)', async (t) => {
    const config = { ui: { auth: { enabled: true, type: 'basic', username: 'admin', password: 'secret-password' } } };
    assert.ok(validateConfig(config), JSON.stringify(validateConfig.errors));
    const authenticator = new DefaultAuthenticator(config.ui.auth, hangingAuthPlugin(), { clock: systemClock(), log: createLogger('silent'), checkTimeoutMs: 100 });
    const base = await serve(t, authenticator);
    const res = await fetch(`${base}/api/v1/plugins`, { headers: { authorization: `Basic ${Buffer.from('admin:guess').toString('base64')}` } });
    assert.equal(res.status, 503);
    assert.equal(res.headers.get('retry-after'), '5');
    const problem = (await res.json()) as { type: string; detail?: string };
    assert.equal(problem.type, 'urn:crateflow:problem:plugin-unavailable');
    assert.equal(problem.detail, undefined, 'a 5xx says no more than its type');
  });
});
