// Webhook settings: what is configured (never a secret), Test and Dry Run per webhook, and the delivery log.
import { useState } from 'preact/hooks';
import { html } from '../html.js';
import { ApiError, query } from '../api.js';
import { getWebhookDeliveries, getWebhooks, redeliverWebhook, testWebhook } from '../endpoints.js';
import { setParams } from '../router.js';
import { useDebounced, useResource } from '../hooks.js';
import { useLiveEvents } from '../live.js';
import { formatDuration, formatTime } from '../format.js';
import { Badge } from '../components/badge.js';
import { ErrorNotice, errorText, toast } from '../components/notice.js';
import { Pager } from '../components/pager.js';
import { StatusFilter } from '../components/status-filter.js';

/** @typedef {import('../../../api-types.js').WebhookTarget} WebhookTarget */
/** @typedef {import('../../../api-types.js').WebhookTestResult} WebhookTestResult */
/** @typedef {import('../../../api-types.js').WebhookDelivery} WebhookDelivery */
/**
 * What the last Test or Dry Run of a webhook gave: the server's answer, or the error of the call.
 * @typedef {{ ok: WebhookTestResult, error?: undefined } | { ok?: undefined, error: unknown }} TestOutcome
 */

/** @type {WebhookDelivery['status'][]} */
const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'];
const LIMIT = 25;

/** @param {import('../app.js').PageProps} props */
export function WebhooksPage({ session, params }) {
  const targets = useResource(getWebhooks, 'webhooks');
  const isAdmin = session.may('admin');
  const unavailable = targets.error instanceof ApiError && targets.error.status === 503;
  return html`<section aria-labelledby="webhooks-title">
    <h1 id="webhooks-title">Webhooks</h1>
    ${!isAdmin ? html`<p class="notice notice-info">Testing and redelivering need the admin role; you are signed in as ${session.role}.</p>` : null}
    ${unavailable
      ? html`<p class="notice notice-info">No webhooks are configured. Add a <code>webhooks</code> list to config.yaml (see docs/webhooks.md) and restart Crateflow.</p>`
      : html`<${ErrorNotice} error=${targets.error} onRetry=${targets.reload} />`}
    ${targets.data && targets.data.items.length === 0 ? html`<p class="empty">No webhooks are configured.</p>` : null}
    <div class="webhooks">
      ${targets.data && targets.data.items.map((t) => html`<${WebhookCard} key=${t.name} target=${t} isAdmin=${isAdmin} />`)}
    </div>
    ${!unavailable ? html`<${DeliveryLog} params=${params} isAdmin=${isAdmin} />` : null}
  </section>`;
}

/** @param {{ target: WebhookTarget, isAdmin: boolean }} props */
function WebhookCard({ target, isAdmin }) {
  const [result, setResult] = useState(/** @type {TestOutcome | null} */ (null));
  const [busy, setBusy] = useState('');
  const id = `webhook-${target.name.replace(/[^A-Za-z0-9_-]/g, '-')}`;

  /** @param {boolean} dryRun */
  async function run(dryRun) {
    setBusy(dryRun ? 'dry' : 'test');
    try {
      setResult({ ok: await testWebhook({ name: target.name, dry_run: dryRun }) });
    } catch (err) {
      setResult({ error: err });
    } finally {
      setBusy('');
    }
  }

  return html`<article class="card webhook" aria-labelledby=${`${id}-name`} data-webhook=${target.name}>
    <header class="webhook-head">
      <h2 id=${`${id}-name`}>${target.name}</h2>
      <${Badge} state=${target.enabled ? 'enabled' : 'disabled'} />
    </header>
    <dl class="facts">
      <div><dt>Target</dt><dd><code class="path">${target.url}</code></dd></div>
      <div><dt>Events</dt><dd>${target.events.map((e) => html`<span key=${e} class="chip">${e}</span>`)}</dd></div>
      <div><dt>Signed</dt><dd>${target.has_secret ? 'Yes (secret set)' : 'No secret'}</dd></div>
      <div><dt>Timeout / retries</dt><dd>${formatDuration(target.timeout_ms)} · ${target.retry} ${target.retry === 1 ? 'retry' : 'retries'}</dd></div>
    </dl>
    <div class="button-row">
      <button type="button" class="btn" aria-label=${`Test ${target.name}`} disabled=${!isAdmin || Boolean(busy)} title=${isAdmin ? 'Send one sample download_completed delivery' : 'Needs the admin role'}
        onClick=${() => run(false)}>${busy === 'test' ? 'Testing…' : 'Test'}</button>
      <button type="button" class="btn" aria-label=${`Dry run ${target.name}`} disabled=${!isAdmin || Boolean(busy)} title=${isAdmin ? 'Show the payload and headers without sending' : 'Needs the admin role'}
        onClick=${() => run(true)}>${busy === 'dry' ? 'Building…' : 'Dry Run'}</button>
    </div>
    ${result ? html`<div class="test-result" role="status" aria-label=${`Result for ${target.name}`}><${TestResult} result=${result} /></div>` : null}
  </article>`;
}

/** @param {{ result: TestOutcome }} props */
function TestResult({ result }) {
  if (!result.ok) return html`<p class="error-text">${errorText(result.error)}</p>`;
  const r = result.ok;
  if (r.dry_run) {
    return html`<div class="dry-run">
      <p><strong>Dry run</strong>: nothing was sent. This is what would be sent:</p>
      <h3>Headers</h3>
      <table class="table kv"><tbody>${Object.entries(r.headers).map(([k, v]) => html`<tr key=${k}><th scope="row">${k}</th><td><code>${v}</code></td></tr>`)}</tbody></table>
      <h3>Payload</h3>
      <pre class="payload"><code>${JSON.stringify(r.payload, null, 2)}</code></pre>
    </div>`;
  }
  return html`<p class=${r.success ? 'ok-text' : 'error-text'}>
    <strong>${r.success ? 'Delivered' : 'Failed'}</strong>
    ${r.status_code !== null ? ` · HTTP ${r.status_code}` : ''} · ${formatDuration(r.duration_ms)}${r.error ? ` · ${r.error}` : ''}
  </p>`;
}

/** @param {{ params: URLSearchParams, isAdmin: boolean }} props */
function DeliveryLog({ params, isAdmin }) {
  const status = DELIVERY_STATUSES.find((s) => s === params.get('status')) ?? '';
  const offset = Math.max(0, Number(params.get('offset')) || 0);
  const key = query({ status, limit: LIMIT, offset });
  const log = useResource((signal) => getWebhookDeliveries(key, signal), key);
  // Deliveries follow events by a moment; refresh a little after each one.
  useLiveEvents(null, useDebounced(log.reload, 1500));

  /** @param {WebhookDelivery} delivery */
  async function redeliver(delivery) {
    try {
      await redeliverWebhook(delivery.id);
      toast(`Redelivering ${delivery.event} to ${delivery.webhook}`);
    } catch (err) {
      toast(errorText(err), 'error');
    }
    setTimeout(log.reload, 500);
  }

  const data = log.data;
  return html`<section class="deliveries" aria-labelledby="deliveries-title">
    <div class="page-head">
      <h2 id="deliveries-title">Delivery log</h2>
      <span class="button-row">
        <${StatusFilter} label="Show deliveries" statuses=${DELIVERY_STATUSES} value=${status} onChange=${(/** @type {string} */ s) => setParams({ status: s, offset: undefined })} />
        <button type="button" class="btn btn-small" onClick=${log.reload}>Refresh</button>
      </span>
    </div>
    <${ErrorNotice} error=${log.error} onRetry=${log.reload} />
    <table class="table stack-table" aria-busy=${log.loading ? 'true' : 'false'}>
      <thead><tr><th>Time</th><th>Webhook</th><th>Event</th><th>Status</th><th>Last attempt</th><th>Next retry</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody>
        ${data && data.items.map((d) => {
          const last = d.attempts[d.attempts.length - 1];
          return html`<tr key=${d.id} data-delivery=${d.id}>
            <td data-label="Time"><time datetime=${d.created_at}>${formatTime(d.created_at)}</time></td>
            <td data-label="Webhook">${d.webhook}</td>
            <td data-label="Event"><span class="chip">${d.event}</span></td>
            <td data-label="Status"><${Badge} state=${d.status} /> <span class="muted">${d.attempts.length} ${d.attempts.length === 1 ? 'attempt' : 'attempts'}</span></td>
            <td data-label="Last attempt">${last ? `${last.status_code !== null ? `HTTP ${last.status_code}` : last.error || 'no answer'} · ${formatDuration(last.duration_ms)}` : '—'}</td>
            <td data-label="Next retry">${d.next_attempt_at ? formatTime(d.next_attempt_at) : '—'}</td>
            <td class="actions">${isAdmin ? html`<button type="button" class="btn btn-small" aria-label=${`Redeliver ${d.event} to ${d.webhook}`} onClick=${() => redeliver(d)}>Redeliver</button>` : null}</td>
          </tr>`;
        })}
      </tbody>
    </table>
    ${data && data.items.length === 0 ? html`<p class="empty">No deliveries yet.</p>` : null}
    ${data ? html`<${Pager} total=${data.total} limit=${data.limit} offset=${data.offset} onPage=${(/** @type {number} */ o) => setParams({ offset: o || undefined }, { replace: false })} label="Delivery pages" />` : null}
  </section>`;
}
