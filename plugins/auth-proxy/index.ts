import { definePlugin, PLUGIN_API_VERSION, Type, type AuthRequest, type Identity } from '@crateflow/sdk';
import { decodeHeaderValue } from './utf8-header.js';

const TrustedHeader = Type.Union([Type.Literal('Remote-User'), Type.Literal('Remote-Groups'), Type.Literal('Remote-Name'), Type.Literal('Remote-Email')]);

const Config = Type.Object(
  {
    trusted_headers: Type.Array(TrustedHeader, {
      default: ['Remote-User', 'Remote-Groups'],
      uniqueItems: true,
      minItems: 1,
      description: 'identity headers believed from ui.auth.trusted_proxies; Remote-User is required',
    }),
  },
  { additionalProperties: false },
);

/** How many different untrusted peers get a warning about ignored identity headers (a misconfiguration hint, not a log flood). */
const WARN_PEERS = 20;

/**
 * `ui.auth.type: proxy`: the identity a forward-auth proxy (Authelia, Authentik, …) puts in `Remote-*`
 * headers. The headers are believed only when the server says the TCP peer is one of `ui.auth.trusted_proxies`
 * (`from_trusted_proxy`); from anyone else they are ignored. An empty `Remote-User` is nobody; an identity header sent twice is refused; values
 * are read as UTF-8.
 */
export default definePlugin({
  manifest: { name: 'auth-proxy', kind: 'auth', apiVersion: PLUGIN_API_VERSION, configSchema: Config, version: '1.0.0' },
  create({ config, log }) {
    if (!config.trusted_headers.includes('Remote-User')) throw new Error('ui.auth.trusted_headers: must list Remote-User');
    const trusted = new Set(config.trusted_headers);
    const warned = new Set<string>();
    const read = (req: AuthRequest, name: 'Remote-Groups' | 'Remote-Name' | 'Remote-Email'): string | undefined => {
      const value = trusted.has(name) ? req.headers[name.toLowerCase()]?.trim() : undefined;
      return value ? decodeHeaderValue(value) : undefined;
    };
    // Identity headers that may arrive once only: a second copy means the proxy let a client's header through.
    const single = ['remote-user', ...config.trusted_headers.map((h) => h.toLowerCase())];

    return {
      type: 'proxy',
      challenge: 'Bearer realm="crateflow"',
      async authenticate(req: AuthRequest): Promise<Identity | null> {
        const raw = req.headers['remote-user']?.trim();
        if (!raw) return null;
        const user = decodeHeaderValue(raw);
        if (req.from_trusted_proxy !== true) {
          if (warned.size < WARN_PEERS && !warned.has(req.peer_address)) {
            warned.add(req.peer_address);
            log.warn({ peer: req.peer_address }, 'ignored Remote-User from a peer outside ui.auth.trusted_proxies (add the proxy there if it is yours)');
          }
          return null;
        }
        const repeated = (req.repeated_headers ?? []).filter((name) => single.includes(name));
        // A comma in Remote-User is how two copies look once node joined them (and on servers that do not list repeats).
        if (user.includes(',') && !repeated.includes('remote-user')) repeated.push('remote-user');
        if (repeated.length > 0) {
          log.warn({ peer: req.peer_address, headers: repeated }, 'refused a request with an identity header sent more than once; make the proxy overwrite it');
          return null;
        }
        const groups = (read(req, 'Remote-Groups') ?? '').split(',').map((g) => g.trim()).filter((g) => g.length > 0);
        const displayName = read(req, 'Remote-Name');
        const email = read(req, 'Remote-Email');
        return { name: user, ...(displayName ? { display_name: displayName } : {}), ...(email ? { email } : {}), groups, via: 'proxy' };
      },
    };
  },
});
