import type { Static } from 'typebox';
import { Type } from 'typebox';
import { route, type RouteSpec } from '../http/route.js';
import type { SourceRunner } from './source-runner.js';
import type { SourceSchedule } from './source-schedule.js';
import type { SourceStateTable } from './source-state-table.js';
import { SourceList, SourceName, SourceRunStarted, type SourceView } from './sources-api.schema.js';

/** Discovery sources: the configured ones with their runs, and a run on demand (CONTRACT §6 "sources"). */
export function sourceRoutes(deps: { runner: SourceRunner; schedule: SourceSchedule; state: SourceStateTable }): RouteSpec[] {
  const { runner, schedule, state } = deps;
  const view = async (name: string): Promise<Static<typeof SourceView>> => {
    const source = runner.get(name);
    const next = schedule.nextRunAt(name);
    return {
      name: source.name,
      type: source.type,
      ...(source.use !== undefined ? { use: source.use } : {}),
      enabled: source.enabled,
      schedule: source.schedule,
      running: (await runner.current(name)) ?? null,
      last_run: runner.lastJob(name) ?? null,
      last_completed_at: state.get(name).last_completed_at ?? null,
      next_run_at: next === undefined ? null : new Date(next).toISOString(),
    };
  };
  return [
    route({
      method: 'get', path: '/sources', tag: 'sources', access: 'read',
      summary: 'Configured discovery sources with their last run, the run in progress and the next one',
      response: SourceList,
      handle: async () => ({ items: await Promise.all(runner.list().map((source) => view(source.name))) }),
    }),
    route({
      method: 'post', path: '/sources/:name/run', tag: 'sources', access: 'decide', status: 202, errors: [404, 409, 503],
      summary: 'Run a source now; 409 while it runs (with the running job) or when it is disabled',
      params: Type.Object({ name: SourceName }),
      response: SourceRunStarted,
      handle: async ({ params }) => ({ job: (await runner.start(params.name, 'manual')).job }),
    }),
  ];
}
