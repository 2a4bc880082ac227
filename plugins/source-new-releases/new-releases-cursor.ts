import { isRecord, numberField, stringField, type PluginStorage } from '@crateflow/sdk';
import type { ReleaseWindow } from './release-window.js';

/**
 * An unfinished run in the plugin's storage: its window (a resumed run keeps the one it started with), the last
 * artist whose releases are all handed to the server (artists are walked in normalised-name order, which survives
 * a library sync in between), and how many albums it proposed. Removed when a run completes.
 */
export interface NewReleasesRun {
  readonly window: ReleaseWindow;
  after: string | undefined;
  proposed: number;
}

const KEY = 'run';

export class NewReleasesCursor {
  constructor(private readonly storage: PluginStorage) {}

  load(): NewReleasesRun | undefined {
    const stored = this.storage.get(KEY);
    if (!isRecord(stored)) return undefined;
    const since = stringField(stored, 'since');
    const until = stringField(stored, 'until');
    if (!since || !until) return undefined;
    return { window: { since, until }, after: stringField(stored, 'after'), proposed: numberField(stored, 'proposed') ?? 0 };
  }

  async save(run: NewReleasesRun): Promise<void> {
    await this.storage.set(KEY, { since: run.window.since, until: run.window.until, proposed: run.proposed, ...(run.after === undefined ? {} : { after: run.after }) });
  }

  async clear(): Promise<void> {
    await this.storage.delete(KEY);
  }
}
