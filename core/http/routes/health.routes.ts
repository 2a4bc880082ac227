import type { Context } from 'koa';
import { hideUrlsIn } from '../../logging/redact-urls.js';
import { cachedProbe } from './cached-probe.js';
import type { Store } from '../../storage/store.js';
import type { LoadedPlugins } from '../../plugins/plugin-host.js';
import type { OutsideOperation } from '../openapi.js';
import { HealthReport } from './health.schema.js';
import { sendJson } from '../send-json.js';

/**
 * `GET /health`: public, never redirects, never asks for credentials. 200 `{status: "ok"}` while the store
 * can be written; 503 `{status: "degraded"}` with the reason when it cannot. A download client or library
 * backend that is unreachable is reported under `plugins` (and makes the status `degraded`) but keeps the
 * 200, so a liveness probe does not restart the service for somebody else's outage.
 */
/**
 * A hung backend delays /health by at most this, and then counts as unhealthy. Well under one second: that is
 * the default timeout of a Kubernetes or Docker health probe, and a slow answer there would restart Crateflow
 * for somebody else's outage.
 */
const PROBE_BUDGET_MS = 500;
/** How long one round of probes answers every /health (a monitor polling each second probes each backend every few). */
const PROBE_MAX_AGE_MS = 5000;

/**
 * `/health` in the OpenAPI document. It is served before the API router (no authentication, every `Host`), so it is
 * described here rather than declared as a route.
 */
export const healthOperation: OutsideOperation = {
  method: 'get', path: '/health', tag: 'meta',
  summary: 'Liveness and readiness: whether the store can be written and the backends answer',
  description:
    'Public: never asks for credentials, never redirects, answers any `Host` (HEAD too). 200 while the store can be ' +
    'written, `status` `degraded` with `plugins` when a download client or library backend is unhealthy; 503 with ' +
    '`store` when the store cannot be written. Not cached (`Cache-Control: no-store`).',
  responses: {
    200: { description: 'The store can be written', schema: HealthReport },
    503: { description: 'The store cannot be written', schema: HealthReport },
  },
};

export function healthHandler(deps: { store: Pick<Store, 'writeProblem'>; plugins: LoadedPlugins; version: string; startedAt: number; now: () => number }) {
  const probe = cachedProbe(() => deps.plugins.health(PROBE_BUDGET_MS), deps.now, PROBE_MAX_AGE_MS);
  return async function health(ctx: Context): Promise<void> {
    // The same judgement as the dashboard (GET /api/v1/stats): a plugin's own health probe when it has one, else
    // its last call. Probing here makes /health right from start-up, before any poll has failed.
    const [storeProblem, probed] = await Promise.all([deps.store.writeProblem(), probe()]);
    const unhealthy = deps.plugins.all.flatMap((p) => {
      const probe = probed.get(p.name);
      const failedLast = Boolean(p.status.last_error_at && (!p.status.last_ok_at || p.status.last_error_at > p.status.last_ok_at));
      if (probe ? probe.ok : !failedLast) return [];
      // Public: a plugin's error can quote its URL (library.url with user:pass@, an internal host), so URLs go.
      return [{ name: p.name, kind: p.kind, error: hideUrlsIn((probe ? probe.message : p.status.last_error) ?? 'unknown error') }];
    });
    const body: HealthReport = {
      status: storeProblem || unhealthy.length > 0 ? 'degraded' : 'ok',
      version: deps.version,
      uptime_s: Math.round((deps.now() - deps.startedAt) / 1000),
    };
    if (storeProblem) body.store = hideUrlsIn(storeProblem);
    if (unhealthy.length > 0) body.plugins = unhealthy;
    ctx.status = storeProblem ? 503 : 200;
    ctx.set('Cache-Control', 'no-store');
    sendJson(ctx, body);
  };
}
