// Users: the household's accounts (local ones with a password, profiles for proxy users, the admin from
// config.yaml), a form for a new local account, an edit dialog per user, and the API keys.
import { useState } from 'preact/hooks';
import { html } from '../html.js';
import { createUser, getUsers } from '../endpoints.js';
import { useResource } from '../hooks.js';
import { Badge } from '../components/badge.js';
import { ErrorNotice, errorText, toast } from '../components/notice.js';
import { UserDialog, describeQuota } from './users-edit.js';
import { ApiKeys } from './users-keys.js';
import { RoleSelect } from './users-role-select.js';

/** @typedef {import('../../../api-types.js').User} User */
/** @typedef {import('../../../api-types.js').Role} Role */

/** @type {Record<User['origin'], string>} */
const ORIGINS = { config: 'config.yaml', local: 'local account', proxy: 'proxy profile' };

/** The page takes no props: everything on it is the household's, not a view of it. */
export function UsersPage() {
  const users = useResource(getUsers, 'users');
  const [editing, setEditing] = useState(/** @type {User | null} */ (null));
  const list = users.data?.items ?? [];
  return html`<section aria-labelledby="users-title">
    <h1 id="users-title">Users</h1>
    <${ErrorNotice} error=${users.error} onRetry=${users.reload} />
    <table class="table stack-table users-table" aria-labelledby="users-title" aria-busy=${users.loading ? 'true' : 'false'}>
      <thead><tr><th>Name</th><th>Role</th><th>Auto-approve</th><th>Quota</th><th>State</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody>
        ${list.map((u) => html`<tr key=${u.name} data-user=${u.name}>
          <td data-label="Name"><strong>${u.display_name || u.name}</strong>${u.display_name ? html` <span class="muted">(${u.name})</span>` : null}
            <span class="muted user-origin">${ORIGINS[u.origin]}</span></td>
          <td data-label="Role">${u.role ?? html`<span class="muted">from groups</span>`}</td>
          <td data-label="Auto-approve">${u.effective.auto_approve ? 'On' : 'Off'}${u.auto_approve === null ? html` <span class="muted">(inherited)</span>` : null}</td>
          <td data-label="Quota">${describeQuota(u.effective.quota)}${u.quota === null ? html` <span class="muted">(inherited)</span>` : null}</td>
          <td data-label="State"><${Badge} state=${u.disabled ? 'disabled' : 'enabled'} /></td>
          <td class="actions">${u.origin === 'config'
            ? html`<span class="muted">set in config.yaml</span>`
            : html`<button type="button" class="btn btn-small" aria-haspopup="dialog" aria-label=${`Edit ${u.name}`} onClick=${() => setEditing(u)}>Edit</button>`}</td>
        </tr>`)}
      </tbody>
    </table>
    ${users.data && list.length === 0 ? html`<p class="empty">No users yet.</p>` : null}
    <${NewUserForm} onCreated=${users.reload} />
    <${ApiKeys} users=${list} />
    ${editing ? html`<${UserDialog} user=${editing} onClose=${() => setEditing(null)} onChanged=${users.reload} />` : null}
  </section>`;
}

/** @param {{ onCreated: () => void }} props */
function NewUserForm({ onCreated }) {
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState(/** @type {Role} */ ('requester'));
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  /** @param {SubmitEvent} event */
  async function submit(event) {
    event.preventDefault();
    setBusy(true);
    setError('');
    try {
      // Without a password it is the profile of someone the forward-auth proxy signs in: a role and settings.
      const user = await createUser({ name: name.trim(), ...(password ? { password } : {}), role });
      toast(user.has_password ? `Created ${user.name} (${user.role ?? 'no role'}): they can sign in now` : `Saved settings for ${user.name} (${user.role ?? 'no role'}), who signs in through the proxy`);
      setName('');
      setPassword('');
      onCreated();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return html`<form class="panel form-panel" aria-labelledby="new-user-title" onSubmit=${submit}>
    <h2 id="new-user-title">New user</h2>
    <div class="form-grid">
      <div class="form-field"><label for="new-user-name">Name</label>
        <input id="new-user-name" name="name" required maxlength="64" pattern="[A-Za-z0-9][A-Za-z0-9._@+\\-]{0,63}" autocomplete="off" value=${name}
          title="Letters, digits and . _ @ + -, starting with a letter or digit"
          onInput=${(/** @type {import('preact').TargetedEvent<HTMLInputElement>} */ e) => setName(e.currentTarget.value)} />
      </div>
      <div class="form-field"><label for="new-user-password">Password <span class="muted">(empty: someone the forward-auth proxy signs in)</span></label>
        <input id="new-user-password" name="password" type="password" minlength="8" autocomplete="new-password" value=${password}
          onInput=${(/** @type {import('preact').TargetedEvent<HTMLInputElement>} */ e) => setPassword(e.currentTarget.value)} />
      </div>
      <${RoleSelect} id="new-user-role" value=${role} onChange=${(/** @type {Role | null} */ r) => r && setRole(r)} />
    </div>
    ${error ? html`<p class="field-error" role="alert">${error}</p>` : null}
    <div class="button-row"><button type="submit" class="btn btn-primary" disabled=${busy}>${busy ? 'Creating…' : 'Create user'}</button></div>
  </form>`;
}
