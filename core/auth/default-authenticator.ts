import type { Context } from 'koa';
import type { Identity, Role } from '@crateflow/sdk';
import type { AppConfig } from '../config/app-config.schema.js';
import type { LoadedPluginOf } from '../plugins/plugin-host.js';
import type { RequestAuthenticator } from './request-authenticator.js';
import { ApiKeyVerifier } from './api-key-verifier.js';

/**
 * API keys in every mode, then the auth plugin of `ui.auth.type` when authentication is enabled. With
 * authentication disabled, a request without an API key is let through without an identity.
 */
export class DefaultAuthenticator implements RequestAuthenticator {
  readonly enabled: boolean;
  readonly type: string;
  readonly challenge: string;
  private readonly apiKeys: ApiKeyVerifier;

  constructor(private readonly config: AppConfig['ui']['auth'], private readonly plugin: LoadedPluginOf<'auth'> | undefined) {
    this.enabled = config.enabled;
    this.type = config.enabled ? (plugin?.instance.type ?? config.type) : 'disabled';
    this.challenge = plugin?.instance.challenge ?? 'Bearer realm="crateflow"';
    this.apiKeys = new ApiKeyVerifier(config.api_keys);
  }

  async identify(ctx: Context): Promise<Identity | null> {
    const key = ApiKeyVerifier.presented(ctx.headers);
    if (key !== undefined && this.apiKeys.configured) {
      const identity = this.apiKeys.verify(key);
      if (identity) return identity;
    }
    if (!this.enabled || !this.plugin) return null;
    return this.plugin.instance.authenticate({
      method: ctx.method,
      path: ctx.path,
      headers: ctx.headers as Record<string, string | undefined>,
      peer_address: ctx.req.socket.remoteAddress ?? '',
      secure: ctx.req.socket && 'encrypted' in ctx.req.socket,
      session_token: ctx.cookies.get('crateflow_session'),
    });
  }

  roleOf(identity: Identity): Role | undefined {
    if (identity.role) return identity.role;
    const ranks: Role[] = ['admin', 'approver', 'viewer'];
    const granted = identity.groups.map((g) => this.config.roles[g]).filter((r): r is Role => r !== undefined);
    return ranks.find((r) => granted.includes(r));
  }
}
