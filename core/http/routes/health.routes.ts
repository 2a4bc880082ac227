import type { Context } from 'koa';
import { hideUrlsIn } from '../../logging/redact-urls.js';
import type { Database } from '../../storage/database.js';
import type { LoadedPlugins } from '../../plugins/plugin-host.js';

/**
 * `GET /health`: public, never redirects, never asks for credentials. 200 `{status: "ok"}` while the store
 * can be written; 503 `{status: "degraded"}` with the reason when it cannot. A download client or library
 * backend that is unreachable is reported under `plugins` (and makes the status `degraded`) but keeps the
 * 200, so a liveness probe does not restart the service for somebody else's outage.
 */
export function healthHandler(deps: { database: Database; plugins: LoadedPlugins; version: string; startedAt: number; now: () => number }) {
  return async function health(ctx: Context): Promise<void> {
    const storeProblem = await deps.database.writeProblem();
    const unhealthy = deps.plugins.all
      .filter((p) => p.status.last_error_at && (!p.status.last_ok_at || p.status.last_error_at > p.status.last_ok_at))
      // Public: a plugin's error can quote its URL (library.url with user:pass@, an internal host), so URLs go.
      .map((p) => ({ name: p.name, kind: p.kind, error: hideUrlsIn(p.status.last_error ?? 'unknown error') }));
    const body: Record<string, unknown> = {
      status: storeProblem || unhealthy.length > 0 ? 'degraded' : 'ok',
      version: deps.version,
      uptime_s: Math.round((deps.now() - deps.startedAt) / 1000),
    };
    if (storeProblem) body.store = hideUrlsIn(storeProblem);
    if (unhealthy.length > 0) body.plugins = unhealthy;
    ctx.status = storeProblem ? 503 : 200;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = body;
  };
}
