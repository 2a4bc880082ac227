// Sources: each discovery source with its state, last run (counts, error or why it found nothing), next run,
// Run now, and the progress of a running one.
import { useState } from 'preact/hooks';
import { html } from '../html.js';
import { getSources, runSource } from '../endpoints.js';
import { useDebounced, useInterval, useResource } from '../hooks.js';
import { useLiveEvents } from '../live.js';
import { formatAgo, formatTime } from '../format.js';
import { Badge } from '../components/badge.js';
import { ErrorNotice, errorText, toast } from '../components/notice.js';

/** @typedef {import('../../../api-types.js').SourceView} SourceView */
/** @typedef {import('../../../api-types.js').Job} Job */

// A run's progress is not an event: while one runs the page asks again at this pace.
const RUNNING_POLL_MS = 2000;

/** @param {import('../app.js').PageProps} props */
export function SourcesPage({ session }) {
  const sources = useResource((signal) => getSources(signal), 'sources');
  useLiveEvents(['queue_added'], useDebounced(sources.reload, 1000));
  const list = sources.data?.items ?? [];
  useInterval(sources.reload, RUNNING_POLL_MS, list.some((s) => s.running));
  const [starting, setStarting] = useState('');
  const canRun = session.may('decide');

  /** @param {SourceView} source */
  async function run(source) {
    setStarting(source.name);
    try {
      await runSource(source.name);
      toast(`Started ${source.name}: its candidates appear in the queue as it finds them`);
    } catch (err) {
      toast(errorText(err), 'error');
    } finally {
      setStarting('');
      sources.reload();
    }
  }

  return html`<section aria-labelledby="sources-title">
    <div class="page-head"><h1 id="sources-title">Sources</h1></div>
    <p class="muted">Discovery sources propose albums for the queue. Change them under <code>sources:</code> in <code>config.yaml</code> (the README's "Discovery sources" lists the types) and restart Crateflow.</p>
    <${ErrorNotice} error=${sources.error} onRetry=${sources.reload} />
    ${sources.data && list.length === 0 ? html`<div class="panel" data-testid="no-sources">
      <p>No discovery source is configured. Add one under <code>sources:</code> in <code>config.yaml</code>, for example:</p>
      <pre class="empty-queue-example">sources:\n  - name: similar\n    type: similar-artists\n    schedule: 1d</pre>
    </div>` : null}
    <ul class="source-list" aria-busy=${sources.loading ? 'true' : 'false'}>
      ${list.map((s) => html`<li key=${s.name} class="card source" data-testid="source">
        <div class="source-head">
          <span><strong class="source-name">${s.name}</strong> <span class="muted">${s.type}</span></span>
          <span class="button-row">
            <${Badge} ...${sourceState(s)} />
            ${canRun && s.enabled ? html`<button type="button" class="btn btn-small" aria-label=${`Run ${s.name} now`}
              disabled=${Boolean(s.running) || starting === s.name} onClick=${() => run(s)}>Run now</button>` : null}
          </span>
        </div>
        ${s.running ? html`<${RunProgress} job=${s.running} />` : null}
        <dl class="source-facts">
          <dt>Schedule</dt><dd>${!s.enabled ? 'disabled (enabled: false)' : s.schedule === 'manual' ? 'runs when started' : `every ${s.schedule}`}</dd>
          <dt>Next run</dt><dd>${s.next_run_at ? html`<time datetime=${s.next_run_at} title=${formatTime(s.next_run_at)}>${formatTime(s.next_run_at)}</time>` : s.running ? 'running now' : '—'}</dd>
          <dt>Last run</dt><dd>${s.last_run && !s.running ? html`<${LastRun} job=${s.last_run} />` : s.running ? 'running now' : 'not run yet'}</dd>
        </dl>
      </li>`)}
    </ul>
  </section>`;
}

/**
 * The source's state as a badge: its word, and the tone of a known state.
 * @param {SourceView} source
 * @returns {{ state: string, label?: string }}
 */
function sourceState(source) {
  if (!source.enabled) return { state: 'disabled' };
  if (source.running) return { state: 'running' };
  if (source.last_run?.status === 'failed') return { state: 'failed' };
  return source.last_run ? { state: 'completed', label: 'ok' } : { state: 'wanted', label: 'ready' };
}

/** @param {{ job: Job }} props */
function RunProgress({ job }) {
  const { progress } = job;
  const share = progress && progress.total ? Math.min(1, progress.done / progress.total) : undefined;
  return html`<div class="progress-row">
    <progress max="1" value=${share} aria-label="Progress of the run">${share === undefined ? '' : `${Math.round(share * 100)}%`}</progress>
    <span class="muted">${progress && progress.total ? `${progress.done} of ${progress.total}` : 'starting…'}${job.eta ? `, done about ${formatTime(job.eta)}` : ''}
      · ${counts(job)}</span>
  </div>`;
}

/** @param {{ job: Job }} props */
function LastRun({ job }) {
  const when = job.finished_at || job.started_at;
  return html`<span><time datetime=${when} title=${formatTime(when)}>${formatAgo(when)}</time>: ${counts(job)}
    ${job.status === 'failed' ? html`<span class="source-error" role="note"><strong>Failed:</strong> ${job.error || 'no reason given'}${job.retry_at ? ` (tried again ${formatTime(job.retry_at)})` : ''}</span>` : null}
    ${job.status === 'completed' && job.note ? html`<span class="source-note">Nothing added: ${job.note}.</span>` : null}</span>`;
}

/**
 * @param {Job} job
 * @returns {string}
 */
function counts(job) {
  const s = job.summary;
  return `${s['added'] ?? 0} added, ${s['duplicate'] ?? 0} duplicate, ${s['owned'] ?? 0} owned${s['rejected_before'] ? `, ${s['rejected_before']} rejected before` : ''}`;
}
