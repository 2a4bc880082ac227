// Editing one user in a dialog: display name, role, auto-approve and quota (each either inherited from config's
// `requests:` or set for this user), where they hear about their requests, disabled, a new password, and deleting
// the user.
import { useState } from 'preact/hooks';
import { html } from '../html.js';
import { changeUser, deleteUser } from '../endpoints.js';
import { useModal } from '../components/modal.js';
import { errorText, toast } from '../components/notice.js';
import { RoleSelect } from './users-role-select.js';

/** @typedef {import('../../../api-types.js').User} User */
/** @typedef {import('../../../api-types.js').UserChange} UserChange */
/** @typedef {import('../../../api-types.js').Quota} Quota */

/** The periods a quota counts over. */
/** @type {[per: string, label: string][]} */
const PERIODS = [['1d', 'day'], ['7d', 'week'], ['30d', '30 days']];

/**
 * "3 albums per week", or "No limit".
 * @param {Quota | null} quota
 */
export function describeQuota(quota) {
  if (!quota) return 'No limit';
  const period = PERIODS.find(([per]) => per === quota.per)?.[1] ?? quota.per;
  return `${quota.albums} ${quota.albums === 1 ? 'album' : 'albums'} per ${period}`;
}

/**
 * @param {boolean | null} value
 * @returns {'inherit' | 'on' | 'off'}
 */
const choiceOf = (value) => (value === null ? 'inherit' : value ? 'on' : 'off');

/** @param {{ user: User, onClose: () => void, onChanged: () => void }} props */
export function UserDialog({ user, onClose, onChanged }) {
  const dialog = useModal(onClose);
  const [displayName, setDisplayName] = useState(user.display_name ?? '');
  const [role, setRole] = useState(user.role);
  const [autoApprove, setAutoApprove] = useState(choiceOf(user.auto_approve));
  const [quotaOwn, setQuotaOwn] = useState(user.quota !== null);
  const [albums, setAlbums] = useState(String(user.quota?.albums ?? user.effective.quota?.albums ?? 5));
  const [per, setPer] = useState(user.quota?.per ?? user.effective.quota?.per ?? '7d');
  const [notifyChannel, setNotifyChannel] = useState(user.notify?.channel ?? '');
  const [notifyTo, setNotifyTo] = useState(user.notify?.to ?? '');
  const [disabled, setDisabled] = useState(user.disabled);
  const [password, setPassword] = useState('');
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  /**
   * Sends a change, then reloads the list; `done` says what happened.
   * @param {() => Promise<unknown>} call
   * @param {string} done
   */
  async function run(call, done) {
    setBusy(true);
    setError('');
    try {
      await call();
      toast(done);
      onChanged();
      onClose();
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  }

  /** @param {SubmitEvent} event */
  function save(event) {
    event.preventDefault();
    /** @type {UserChange} */
    const change = {};
    if (displayName.trim() !== (user.display_name ?? '')) change.display_name = displayName.trim() || null;
    if (role !== user.role) change.role = role;
    const auto = autoApprove === 'inherit' ? null : autoApprove === 'on';
    if (auto !== user.auto_approve) change.auto_approve = auto;
    const quota = quotaOwn ? { albums: Number(albums), per } : null;
    if (JSON.stringify(quota) !== JSON.stringify(user.quota)) change.quota = quota;
    // Both fields, or neither: the server names what is wrong with a channel or an address.
    const notify = notifyChannel.trim() || notifyTo.trim() ? { channel: notifyChannel.trim(), to: notifyTo.trim() } : null;
    if (JSON.stringify(notify) !== JSON.stringify(user.notify)) change.notify = notify;
    if (disabled !== user.disabled) change.disabled = disabled;
    if (Object.keys(change).length === 0) return onClose();
    run(() => changeUser(user.name, change), `Saved ${user.name}${change.disabled ? ': signed out everywhere' : ''}`);
  }

  /** @param {SubmitEvent} event */
  function setNewPassword(event) {
    event.preventDefault();
    run(() => changeUser(user.name, { password }), `New password set for ${user.name}: their other sessions ended`);
  }

  const titleId = 'user-dialog-title';
  return html`<dialog ref=${dialog} class="modal user-dialog" aria-labelledby=${titleId}>
    <div class="modal-head">
      <h2 id=${titleId}>Edit ${user.name}</h2>
      <button type="button" class="btn btn-small btn-ghost" aria-label="Close" onClick=${onClose}>✕</button>
    </div>
    <form class="form-grid" onSubmit=${save} aria-label=${`Settings of ${user.name}`}>
      <div class="form-field"><label for="user-display-name">Display name</label>
        <input id="user-display-name" name="display_name" maxlength="100" value=${displayName}
          onInput=${(/** @type {import('preact').TargetedEvent<HTMLInputElement>} */ e) => setDisplayName(e.currentTarget.value)} />
      </div>
      <${RoleSelect} id="user-role" value=${role} onChange=${setRole} fromGroups=${user.origin === 'proxy'} />
      <div class="form-field"><label for="user-auto-approve">Auto-approve requests</label>
        <select id="user-auto-approve" name="auto_approve" value=${autoApprove} onChange=${(/** @type {import('preact').TargetedEvent<HTMLSelectElement>} */ e) => setAutoApprove(choiceOf(
          e.currentTarget.value === 'inherit' ? null : e.currentTarget.value === 'on'))}>
          <option value="inherit">As configured${user.auto_approve === null ? ` (${user.effective.auto_approve ? 'on' : 'off'})` : ''}</option>
          <option value="on">On: their requests are approved at once</option>
          <option value="off">Off: an admin decides each one</option>
        </select>
      </div>
      <fieldset class="form-field quota-field">
        <legend>Quota for automatic approval</legend>
        <label class="check-field"><input type="checkbox" checked=${!quotaOwn}
          onChange=${(/** @type {import('preact').TargetedEvent<HTMLInputElement>} */ e) => setQuotaOwn(!e.currentTarget.checked)} /><span>As configured</span></label>
        ${quotaOwn ? html`<span class="quota-inputs">
          <input type="number" name="albums" min="0" max="1000" required aria-label="Albums" value=${albums}
            onInput=${(/** @type {import('preact').TargetedEvent<HTMLInputElement>} */ e) => setAlbums(e.currentTarget.value)} />
          <span>albums per</span>
          <select name="per" aria-label="Period" value=${per} onChange=${(/** @type {import('preact').TargetedEvent<HTMLSelectElement>} */ e) => setPer(e.currentTarget.value)}>
            ${PERIODS.map(([p, label]) => html`<option key=${p} value=${p}>${label}</option>`)}
          </select>
        </span>` : null}
      </fieldset>
      <fieldset class="form-field notify-field">
        <legend>Tell them when a request is declined or in the library</legend>
        <label for="user-notify-channel">Channel (a name from config.yaml notifications)</label>
        <input id="user-notify-channel" name="notify_channel" maxlength="100" placeholder="phone" value=${notifyChannel}
          onInput=${(/** @type {import('preact').TargetedEvent<HTMLInputElement>} */ e) => setNotifyChannel(e.currentTarget.value)} />
        <label for="user-notify-to">Their ntfy topic, or Telegram chat id</label>
        <input id="user-notify-to" name="notify_to" maxlength="200" value=${notifyTo}
          onInput=${(/** @type {import('preact').TargetedEvent<HTMLInputElement>} */ e) => setNotifyTo(e.currentTarget.value)} />
      </fieldset>
      <label class="check-field"><input type="checkbox" name="disabled" checked=${disabled}
        onChange=${(/** @type {import('preact').TargetedEvent<HTMLInputElement>} */ e) => setDisabled(e.currentTarget.checked)} /><span>Disabled: cannot sign in (ends their sessions)</span></label>
      <div class="button-row"><button type="submit" class="btn btn-primary" disabled=${busy}>Save</button></div>
    </form>
    ${user.origin === 'local' ? html`<form class="form-grid user-password" onSubmit=${setNewPassword} aria-label=${`New password for ${user.name}`}>
      <div class="form-field"><label for="user-new-password">New password</label>
        <input id="user-new-password" type="password" name="password" required minlength="8" autocomplete="new-password" value=${password}
          onInput=${(/** @type {import('preact').TargetedEvent<HTMLInputElement>} */ e) => setPassword(e.currentTarget.value)} />
      </div>
      <div class="button-row"><button type="submit" class="btn" disabled=${busy}>Set password</button></div>
    </form>` : null}
    ${error ? html`<p class="field-error" role="alert">${error}</p>` : null}
    <div class="button-row user-delete">
      ${confirmDelete
        ? html`<span>Delete ${user.name} and their API keys?</span>
          <button type="button" class="btn btn-reject" disabled=${busy} onClick=${() => run(() => deleteUser(user.name), `Deleted ${user.name}`)}>Confirm delete</button>
          <button type="button" class="btn btn-ghost" onClick=${() => setConfirmDelete(false)}>Keep</button>`
        : html`<button type="button" class="btn btn-reject" onClick=${() => setConfirmDelete(true)}>Delete user</button>`}
    </div>
  </dialog>`;
}
