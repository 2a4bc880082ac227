import type { AuthRequest } from '@crateflow/sdk';

/** Methods that change nothing; everything else needs CSRF protection when a browser credential authenticates it. */
export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Where a browser says a request comes from (`Origin`, else the origin of `Referer`), and whether that is this
 * site: its host (and port) equal the `Host` header, or the `X-Forwarded-Host` a trusted proxy sent. `origin`
 * is undefined when the request carries neither header (non-browser clients).
 */
export function requestOrigin(req: AuthRequest): { origin: string | undefined; sameSite: boolean } {
  const origin = req.headers.origin ?? refererOrigin(req.headers.referer);
  if (origin === undefined) return { origin, sameSite: false };
  const url = parse(origin);
  if (!url) return { origin, sameSite: false };
  const hosts = [req.headers.host, req.from_trusted_proxy ? req.headers['x-forwarded-host']?.split(',')[0]?.trim() : undefined];
  const sameSite = hosts.some((host) => host !== undefined && parse(`${url.protocol}//${host}`)?.host === url.host);
  return { origin, sameSite };
}

function refererOrigin(referer: string | undefined): string | undefined {
  return referer === undefined ? undefined : (parse(referer)?.origin ?? referer);
}

function parse(text: string): URL | undefined {
  return URL.canParse(text) ? new URL(text) : undefined;
}
