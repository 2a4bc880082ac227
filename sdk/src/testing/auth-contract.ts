import assert from 'node:assert/strict';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import type { PluginDefinition } from '../define-plugin.js';
import type { AuthRequest, Identity } from '../kinds/auth.js';
import { Role } from '../records.js';
import { registerContract, type CommonContractOptions, type ContractCheck, type ContractService, type ServiceAndConfig } from './contract-check.js';
import { lifecycleChecks } from './lifecycle-checks.js';
import { withInstance } from './plugin-harness.js';

/**
 * Options of {@link testAuthContract}. `authenticated` describes a request the plugin must accept (for a
 * proxy plugin: the trusted headers; for a login plugin, leave it out and give `login` instead).
 *
 * @example
 * { config: { header: 'remote-user' }, authenticated: () => ({ ...anonymousRequest(), headers: { 'remote-user': 'alice' } }) }
 */
export type AuthContractOptions<S extends TSchema, V extends ContractService> = ServiceAndConfig<S, V> &
  CommonContractOptions & {
    authenticated?: (service: V | undefined) => AuthRequest;
    /** Credentials `login()` must accept, for plugins with a login form. */
    login?: { username: string; password: string };
  };

const VIA: readonly Identity['via'][] = ['session', 'basic', 'proxy', 'api-key'];

/**
 * A request with no credentials at all, from loopback, as the server describes it to an auth plugin.
 *
 * @example
 * assert.equal(await auth.authenticate(anonymousRequest()), null);
 */
export function anonymousRequest(overrides: Partial<AuthRequest> = {}): AuthRequest {
  return { method: 'GET', path: '/api/v1/queue', headers: {}, peer_address: '127.0.0.1', secure: false, ...overrides };
}

/**
 * The behaviour every auth plugin must have, as checks: null for an anonymous request, a well-formed identity
 * for an authenticated one, a refused wrong password.
 *
 * @example
 * for (const check of authContractChecks(plugin, { config: {} })) await check.run();
 */
export function authContractChecks<S extends TSchema, V extends ContractService>(plugin: PluginDefinition<'auth', S>, options: AuthContractOptions<S, V>): ContractCheck[] {
  const checks = lifecycleChecks(plugin, 'auth', options, async (h) => {
    await h.instance.authenticate(anonymousRequest());
  });
  checks.push({
    name: 'reports its type and returns null for an anonymous request',
    run: () =>
      withInstance(plugin, options, async ({ instance }) => {
        assert.ok(typeof instance.type === 'string' && instance.type.length > 0, 'an auth plugin must have a non-empty type');
        assert.equal(await instance.authenticate(anonymousRequest()), null);
      }),
  });
  const authenticated = options.authenticated;
  if (authenticated) {
    checks.push({
      name: 'returns a well-formed identity for the authenticated request',
      run: () =>
        withInstance(plugin, options, async ({ instance, service }) => {
          assertIdentity(await instance.authenticate(authenticated(service)));
        }),
    });
  }
  const credentials = options.login;
  if (credentials) {
    checks.push({
      name: 'logs in with the right password, refuses a wrong one, and knows the new session',
      run: () =>
        withInstance(plugin, options, async ({ instance }) => {
          assert.ok(instance.login, 'options.login is given, so the plugin must implement login()');
          assert.equal(await instance.login({ ...credentials, password: `${credentials.password}-wrong` }, anonymousRequest()), null);
          const session = await instance.login(credentials, anonymousRequest());
          assert.ok(session && session.session_token.length > 0, 'login() with the right password must return a session token');
          assertIdentity(session.identity);
          assertIdentity(await instance.authenticate(anonymousRequest({ session_token: session.session_token })));
          await instance.logout?.(session.session_token);
          if (instance.logout) assert.equal(await instance.authenticate(anonymousRequest({ session_token: session.session_token })), null);
        }),
    });
  }
  return checks;
}

/**
 * Registers the auth contract as a node:test suite. Call it at the top level of a test file.
 *
 * @example
 * import { testAuthContract, anonymousRequest } from '@crateflow/sdk/testing';
 * testAuthContract(plugin, { config: {}, authenticated: () => anonymousRequest({ headers: { 'remote-user': 'alice' } }) });
 */
export function testAuthContract<S extends TSchema, V extends ContractService>(plugin: PluginDefinition<'auth', S>, options: AuthContractOptions<S, V>): void {
  registerContract(`${plugin.manifest.name} (auth contract)`, authContractChecks(plugin, options), options);
}

function assertIdentity(identity: Identity | null): void {
  assert.ok(identity, 'expected an identity, got null');
  assert.ok(typeof identity.name === 'string' && identity.name.length > 0, 'identity.name must be a non-empty string');
  assert.ok(Array.isArray(identity.groups) && identity.groups.every((g) => typeof g === 'string'), 'identity.groups must be an array of strings');
  assert.ok(VIA.includes(identity.via), `identity.via must be one of ${VIA.join(', ')}`);
  if (identity.role !== undefined) assert.ok(Value.Check(Role, identity.role), `identity.role must be admin, approver or viewer (got ${identity.role})`);
}
