import { Type, type Static } from 'typebox';

export const JobStatus = Type.Union([Type.Literal('running'), Type.Literal('completed'), Type.Literal('failed')]);

export const Job = Type.Object(
  {
    id: Type.String(),
    kind: Type.String({ description: 'library_sync, download_poll, …' }),
    status: JobStatus,
    trigger: Type.Union([Type.Literal('manual'), Type.Literal('schedule')]),
    started_at: Type.String(),
    finished_at: Type.Optional(Type.String()),
    summary: Type.Record(Type.String(), Type.Number()),
    error: Type.Optional(Type.String()),
  },
  { additionalProperties: false, $id: 'Job' },
);
export type Job = Static<typeof Job>;
