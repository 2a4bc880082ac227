// API keys: every key (from config.yaml and stored), a form for a new one with the scopes it carries, and the new
// key's secret, shown once with a Copy button (the server keeps only its hash).
import { useState } from 'preact/hooks';
import { html } from '../html.js';
import { createApiKey, deleteApiKey, getApiKeys } from '../endpoints.js';
import { useResource } from '../hooks.js';
import { formatTime } from '../format.js';
import { ErrorNotice, errorText, toast } from '../components/notice.js';

/** @typedef {import('../../../api-types.js').ApiKey} ApiKey */
/** @typedef {import('../../../api-types.js').Scope} Scope */
/** @typedef {import('../../../api-types.js').User} User */

/**
 * Each scope, with what it lets a key do.
 * @type {[scope: Scope, what: string][]}
 */
const SCOPES = [
  ['read', 'read everything'],
  ['request', 'request albums'],
  ['decide', 'approve and reject'],
  ['admin', 'manage users, keys and webhooks'],
];

/** @param {{ users: User[] }} props */
export function ApiKeys({ users }) {
  const keys = useResource(getApiKeys, 'api-keys');
  const [created, setCreated] = useState(/** @type {{ key: string, name: string } | null} */ (null));
  const [confirming, setConfirming] = useState('');

  /** @param {ApiKey} key */
  async function remove(key) {
    setConfirming('');
    try {
      await deleteApiKey(key.id);
      toast(`Deleted the API key ${key.name}: it no longer works`);
    } catch (err) {
      toast(errorText(err), 'error');
    }
    keys.reload();
  }

  const list = keys.data?.items ?? [];
  return html`<section class="api-keys" aria-labelledby="keys-title">
    <h2 id="keys-title">API keys</h2>
    <p class="muted">A key acts for its user with the scopes it carries, at most the user's own. Scripts, Home Assistant and Node-RED send it as <code>X-Api-Key</code>.</p>
    <${ErrorNotice} error=${keys.error} onRetry=${keys.reload} />
    ${created ? html`<${NewKey} created=${created} onDone=${() => setCreated(null)} />` : null}
    <table class="table stack-table" aria-labelledby="keys-title" aria-busy=${keys.loading ? 'true' : 'false'}>
      <thead><tr><th>Name</th><th>User</th><th>Scopes</th><th>Created</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody>
        ${list.map((k) => html`<tr key=${k.id} data-key=${k.name}>
          <td data-label="Name"><strong>${k.name}</strong>${k.origin === 'config' ? html` <span class="muted">(config.yaml)</span>` : null}</td>
          <td data-label="User">${k.user || html`<span class="muted">—</span>`}</td>
          <td data-label="Scopes">${k.scopes.map((s) => html`<span key=${s} class="chip">${s}</span>`)}</td>
          <td data-label="Created">${k.created_at ? html`<time datetime=${k.created_at}>${formatTime(k.created_at)}</time>` : html`<span class="muted">—</span>`}</td>
          <td class="actions">${k.origin === 'config'
            ? null
            : confirming === k.id
              ? html`<button type="button" class="btn btn-small btn-reject" aria-label=${`Confirm deleting the key ${k.name}`} onClick=${() => remove(k)}>Confirm delete</button>
                <button type="button" class="btn btn-small btn-ghost" onClick=${() => setConfirming('')}>Keep</button>`
              : html`<button type="button" class="btn btn-small" aria-label=${`Delete the key ${k.name}`} onClick=${() => setConfirming(k.id)}>Delete</button>`}</td>
        </tr>`)}
      </tbody>
    </table>
    ${keys.data && list.length === 0 ? html`<p class="empty">No API keys yet.</p>` : null}
    <${NewKeyForm} users=${users} onCreated=${(/** @type {{ key: string, name: string }} */ key) => {
      setCreated(key);
      keys.reload();
    }} />
  </section>`;
}

/** @param {{ users: User[], onCreated: (created: { key: string, name: string }) => void }} props */
function NewKeyForm({ users, onCreated }) {
  const [name, setName] = useState('');
  const [user, setUser] = useState('');
  const [scopes, setScopes] = useState(/** @type {ReadonlySet<Scope>} */ (new Set(['read'])));
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const owner = user || users[0]?.name || '';

  /** @param {SubmitEvent} event */
  async function submit(event) {
    event.preventDefault();
    if (scopes.size === 0) return setError('Choose at least one scope.');
    setBusy(true);
    setError('');
    try {
      const answer = await createApiKey({ name: name.trim(), user: owner, scopes: SCOPES.map(([s]) => s).filter((s) => scopes.has(s)) });
      setName('');
      onCreated({ key: answer.key, name: answer.api_key.name });
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  /**
   * @param {Scope} scope
   * @param {boolean} on
   */
  const toggle = (scope, on) => setScopes((old) => new Set([...old].filter((s) => s !== scope).concat(on ? [scope] : [])));

  return html`<form class="panel form-panel" aria-labelledby="new-key-title" onSubmit=${submit}>
    <h3 id="new-key-title">New API key</h3>
    <div class="form-grid">
      <div class="form-field"><label for="new-key-name">Name</label>
        <input id="new-key-name" name="key_name" required maxlength="100" autocomplete="off" placeholder="e.g. home-assistant" value=${name}
          onInput=${(/** @type {import('preact').TargetedEvent<HTMLInputElement>} */ e) => setName(e.currentTarget.value)} />
      </div>
      <div class="form-field"><label for="new-key-user">User</label>
        <select id="new-key-user" name="user" required value=${owner} onChange=${(/** @type {import('preact').TargetedEvent<HTMLSelectElement>} */ e) => setUser(e.currentTarget.value)}>
          ${users.map((u) => html`<option key=${u.name} value=${u.name}>${u.name}</option>`)}
        </select>
      </div>
      <fieldset class="form-field scope-choices">
        <legend>Scopes</legend>
        ${SCOPES.map(([scope, what]) => html`<label key=${scope} class="check-field"><input type="checkbox" name="scopes" value=${scope} checked=${scopes.has(scope)}
          onChange=${(/** @type {import('preact').TargetedEvent<HTMLInputElement>} */ e) => toggle(scope, e.currentTarget.checked)} /><span><strong>${scope}</strong> <span class="muted">${what}</span></span></label>`)}
      </fieldset>
    </div>
    ${error ? html`<p class="field-error" role="alert">${error}</p>` : null}
    <div class="button-row"><button type="submit" class="btn btn-primary" disabled=${busy || users.length === 0}>${busy ? 'Creating…' : 'Create key'}</button></div>
  </form>`;
}

/**
 * The secret of a key just created: shown this once, with Copy.
 * @param {{ created: { key: string, name: string }, onDone: () => void }} props
 */
function NewKey({ created, onDone }) {
  const [copied, setCopied] = useState(false);

  async function copy() {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied(true);
    } catch (err) {
      // The clipboard may be refused (no permission, a page served over plain http to another host): the key is
      // still on screen, selectable, and the message says to copy it by hand.
      toast(`Copying failed (${errorText(err)}): select the key and copy it by hand`, 'error');
    }
  }

  return html`<div class="notice notice-warning new-key" role="status" data-testid="new-api-key">
    <p><strong>${created.name}</strong>: copy this key now. Crateflow keeps only its hash and cannot show it again.</p>
    <p class="new-key-row"><code class="path new-key-secret" data-testid="new-api-key-secret">${created.key}</code>
      <button type="button" class="btn btn-small" onClick=${copy}>${copied ? 'Copied' : 'Copy'}</button>
      <button type="button" class="btn btn-small btn-ghost" onClick=${onDone}>Done</button></p>
  </div>`;
}
