import { Type } from 'typebox';
import { SOURCE_NAME_PATTERN } from '../config/source-entry.schema.js';
import { Job } from '../jobs/job.schema.js';

export const SourceName = Type.String({ minLength: 1, maxLength: 64, pattern: SOURCE_NAME_PATTERN, description: 'the name of a sources: entry' });

/** A configured discovery source, with its runs. */
export const SourceView = Type.Object(
  {
    name: Type.String(),
    type: Type.String({ description: 'the built-in type, or the plugin name of a third-party source' }),
    use: Type.Optional(Type.String({ description: 'a third-party source: what it was loaded from (use: in config.yaml)' })),
    enabled: Type.Boolean(),
    schedule: Type.String({ description: 'a duration (6h, 1d) or "manual"' }),
    running: Type.Union([Job, Type.Null()], { description: 'the run in progress, with its progress, ETA and counts so far' }),
    last_run: Type.Union([Job, Type.Null()], { description: 'the latest run (the one in progress while running)' }),
    last_completed_at: Type.Union([Type.String(), Type.Null()], { description: 'when the last successful run finished' }),
    next_run_at: Type.Union([Type.String(), Type.Null()], { description: 'when it runs next by itself; null for manual or disabled sources, and while it runs' }),
  },
  { additionalProperties: false, $id: 'Source' },
);

export const SourceList = Type.Object({ items: Type.Array(SourceView) }, { $id: 'SourceList' });

export const SourceRunStarted = Type.Object({ job: Job }, { $id: 'SourceRunStarted' });
