import { Type, type Static } from 'typebox';

export const JobStatus = Type.Union([Type.Literal('running'), Type.Literal('completed'), Type.Literal('failed')]);

/** How far a running job is, in units the job chooses (a source counts seeds or pages). */
export const JobProgress = Type.Object(
  {
    done: Type.Number({ minimum: 0, description: 'units done' }),
    total: Type.Optional(Type.Number({ minimum: 0, description: 'units in all, when known' })),
  },
  { additionalProperties: false },
);
export type JobProgress = Static<typeof JobProgress>;

export const Job = Type.Object(
  {
    id: Type.String(),
    kind: Type.String({ description: 'library_sync, source_run, download_poll, …' }),
    status: JobStatus,
    trigger: Type.Union([Type.Literal('manual'), Type.Literal('schedule')]),
    started_at: Type.String(),
    finished_at: Type.Optional(Type.String()),
    summary: Type.Record(Type.String(), Type.Number(), {
      description: 'counts; a source run: added, duplicate, owned, rejected_before, invalid (so far, while it runs)',
    }),
    error: Type.Optional(Type.String()),
    note: Type.Optional(Type.String({ description: 'a run that added nothing: why, in words (the source\'s own explanation, else what its counts say)' })),
    source: Type.Optional(Type.String({ description: 'source_run: the name of the source' })),
    progress: Type.Optional(JobProgress),
    eta: Type.Optional(Type.String({ description: 'while running, when the job is expected to finish (from its progress so far)' })),
    retry_at: Type.Optional(Type.String({ description: 'a job that failed because a service was unavailable: when it is tried again' })),
  },
  { additionalProperties: false, $id: 'Job' },
);
export type Job = Static<typeof Job>;
