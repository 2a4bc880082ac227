import { Type } from 'typebox';
import { route, type RouteSpec } from '../route.js';
import type { LoadedPlugins } from '../../plugins/plugin-host.js';

const PluginInfo = Type.Object(
  {
    name: Type.String(),
    kind: Type.String(),
    version: Type.String(),
    config_path: Type.String({ description: 'where its config block is in config.yaml' }),
    healthy: Type.Boolean(),
    last_ok_at: Type.Optional(Type.String()),
    last_error: Type.Optional(Type.String()),
    last_error_at: Type.Optional(Type.String()),
  },
  { $id: 'PluginInfo' },
);

/** `/openapi.json` and `/plugins` (the operator view of loaded plugins). */
export function metaRoutes(deps: { plugins: LoadedPlugins; openApi: () => Record<string, unknown> }): RouteSpec[] {
  return [
    route({
      method: 'get', path: '/openapi.json', tag: 'meta', access: 'public',
      summary: 'This API as an OpenAPI 3.1 document',
      response: Type.Record(Type.String(), Type.Unknown()),
      handle: () => deps.openApi(),
    }),
    route({
      method: 'get', path: '/plugins', tag: 'meta', access: 'read',
      summary: 'Loaded plugins with kind, version and health',
      response: Type.Object({ items: Type.Array(PluginInfo) }),
      handle: async () => {
        const health = await deps.plugins.health(3000);
        return {
          items: deps.plugins.all.map((p) => {
            const reported = health.get(p.name);
            const failedLast = Boolean(p.status.last_error_at && (!p.status.last_ok_at || p.status.last_error_at > p.status.last_ok_at));
            return {
              name: p.name,
              kind: p.kind,
              version: p.version,
              config_path: p.configPath,
              healthy: reported ? reported.ok : !failedLast,
              ...p.status,
              ...(reported && !reported.ok && reported.message ? { last_error: reported.message } : {}),
            };
          }),
        };
      },
    }),
  ];
}
