// The queue with nothing pending and no search: says where candidates come from, and how to get some.
import { useState } from 'preact/hooks';
import { html } from '../html.js';
import { getSources, runSource } from '../endpoints.js';
import { useResource } from '../hooks.js';
import { formatAgo } from '../format.js';
import { AddButton } from './add-dialog.js';
import { Badge } from './badge.js';
import { ErrorNotice, errorText, toast } from './notice.js';

/** @typedef {import('../../../api-types.js').SourceView} SourceView */

/**
 * @param {{ canAdd: boolean, canRun: boolean, onAdded: () => void }} props
 */
export function EmptyQueue({ canAdd, canRun, onAdded }) {
  const sources = useResource((signal) => getSources(signal), 'sources');
  const [starting, setStarting] = useState('');
  const list = sources.data?.items ?? [];
  // The main action of an empty queue: run a source now (the first enabled one), when there is one to run.
  const firstSource = canRun ? list.find((s) => s.enabled) : undefined;
  const quietRuns = list.filter((s) => !s.running && s.last_run?.status === 'completed' && s.last_run.note);

  /** @param {SourceView} source */
  async function run(source) {
    setStarting(source.name);
    try {
      await runSource(source.name);
      toast(`Started ${source.name}: its candidates appear here as it finds them`);
      sources.reload();
    } catch (err) {
      toast(errorText(err), 'error');
    } finally {
      setStarting('');
    }
  }

  return html`<div class="empty-queue panel" data-testid="empty-queue">
    <h2>Nothing is waiting for a decision</h2>
    <p>Albums come into the queue from three places:</p>
    <ul class="empty-queue-origins">
      <li><strong>Discovery sources</strong> that Crateflow runs on a schedule: your listening on ListenBrainz, artists similar to the ones you own, new releases of your artists.</li>
      <li><strong>The API</strong>: anything that can send <code>POST /api/v1/queue</code> with an artist and album, or a MusicBrainz id.</li>
      <li><strong>Node-RED</strong>: the Crateflow nodes propose albums from your own flows.</li>
    </ul>
    ${firstSource || canAdd ? html`<div class="button-row">
      ${firstSource ? html`<button type="button" class="btn btn-primary" data-testid="run-first-source" disabled=${Boolean(firstSource.running) || starting === firstSource.name}
        onClick=${() => run(firstSource)}>${firstSource.running ? `${firstSource.name} is running…` : `Run ${firstSource.name} now`}</button>` : null}
      ${canAdd ? html`<${AddButton} onAdded=${onAdded} label="Add an album" primary=${!firstSource} />` : null}
    </div>` : null}
    ${quietRuns.map((s) => html`<p key=${s.name} class="muted" data-testid="source-note">The last run of <strong>${s.name}</strong> added nothing: ${s.last_run?.note}.</p>`)}
    <details class="empty-queue-setup" open=${!sources.loading && list.length === 0}>
      <summary>Set up a source</summary>
      <${ErrorNotice} error=${sources.error} onRetry=${sources.reload} />
      ${sources.data && list.length === 0 ? html`<p>No discovery source is configured. Add one under <code>sources:</code> in <code>config.yaml</code>${' '}
        and restart Crateflow; the README's section "Discovery sources" lists the types and their settings, for example:</p>
        <pre class="empty-queue-example">sources:\n  - name: similar\n    type: similar-artists\n    schedule: 1d</pre>` : null}
      ${list.length > 0 ? html`<p>Configured sources (change them under <code>sources:</code> in <code>config.yaml</code>):</p>
        <ul class="plain-list empty-queue-sources" aria-label="Discovery sources">
          ${list.map((s) => html`<li key=${s.name} class="plugin">
            <span><strong>${s.name}</strong> <span class="muted">${s.type} · ${s.schedule === 'manual' ? 'runs when started' : `every ${s.schedule}`}</span></span>
            <span class="button-row">
              ${s.running ? html`<${Badge} state="running" />`
                : s.last_run ? html`<span class="muted">last run ${formatAgo(s.last_run.finished_at || s.last_run.started_at)}</span>`
                : html`<span class="muted">not run yet</span>`}
              ${!s.enabled ? html`<${Badge} state="disabled" />` : null}
              ${canRun && s.enabled ? html`<button type="button" class="btn btn-small" aria-label=${`Run ${s.name} now`}
                disabled=${Boolean(s.running) || starting === s.name} onClick=${() => run(s)}>Run now</button>` : null}
            </span>
          </li>`)}
        </ul>` : null}
    </details>
  </div>`;
}
