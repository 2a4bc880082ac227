import type { Context, Next } from 'koa';
import { HostNotAllowedError } from '../errors/host-not-allowed-error.js';
import type { AllowedHosts } from './allowed-hosts.js';

/**
 * Refuses (421) every request whose `Host` is not one of this service's names, before authentication, so a
 * DNS-rebound page can neither read nor change anything, in any auth mode, from any peer (a trusted proxy on
 * loopback included: a local browser is on loopback too). `GET /health` stays open to every `Host`: Docker
 * and orchestrators probe it by container name or IP, and it reveals nothing a rebinding page could misuse.
 */
export function refuseForeignHosts(hosts: AllowedHosts) {
  return async function hostCheck(ctx: Context, next: Next): Promise<void> {
    const isHealth = ctx.path === '/health' && (ctx.method === 'GET' || ctx.method === 'HEAD');
    const host = ctx.req.headers.host;
    if (!isHealth && !hosts.allows(host)) throw new HostNotAllowedError(host ?? '');
    await next();
  };
}
