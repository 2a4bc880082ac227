// "Sync library now": starts a library sync, follows its job until it ends, says how it went, then calls `onDone`.
import { useState } from 'preact/hooks';
import { html } from '../html.js';
import { getJob, startLibrarySync } from '../endpoints.js';
import { useInterval } from '../hooks.js';
import { errorText, toast } from './notice.js';

// No live event marks the end of a sync, so the button asks for its job at this pace while it runs.
const SYNC_POLL_MS = 1000;

/** @param {{ onDone: () => void }} props */
export function SyncButton({ onDone }) {
  const [running, setRunning] = useState(/** @type {string | null} */ (null));
  useInterval(async () => {
    if (!running) return;
    try {
      const current = await getJob(running);
      if (current.status !== 'running') {
        setRunning(null);
        toast(current.status === 'completed' ? 'Library sync finished' : `Library sync failed: ${current.error || 'unknown error'}`, current.status === 'completed' ? 'ok' : 'error');
        onDone();
      }
    } catch (err) {
      setRunning(null);
      toast(errorText(err), 'error');
    }
  }, SYNC_POLL_MS, Boolean(running));

  async function sync() {
    try {
      const { job } = await startLibrarySync();
      setRunning(job.id);
    } catch (err) {
      toast(errorText(err), 'error');
    }
  }

  return html`<button type="button" class="btn" onClick=${sync} disabled=${Boolean(running)}>${running ? 'Syncing…' : 'Sync library now'}</button>`;
}
