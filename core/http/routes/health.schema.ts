import { Type, type Static } from 'typebox';

/** The body of `GET /health`, in both its 200 and its 503 answer. */
export const HealthReport = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')], {
      description: 'degraded when the store cannot be written (503) or a plugin is unhealthy (still 200)',
    }),
    version: Type.String({ description: 'the Crateflow version' }),
    uptime_s: Type.Integer({ minimum: 0, description: 'seconds since the service started' }),
    store: Type.Optional(Type.String({ description: 'why the store cannot be written (only with 503)' })),
    plugins: Type.Optional(
      Type.Array(
        Type.Object({
          name: Type.String(),
          kind: Type.String(),
          error: Type.String({ description: 'the failure, with any URL hidden' }),
        }),
        { description: 'the plugins whose backend is unhealthy (a download client or library that is unreachable)' },
      ),
    ),
  },
  { additionalProperties: false, $id: 'HealthReport' },
);
export type HealthReport = Static<typeof HealthReport>;
