// The role of a user, chosen with what each role lets a person do.
import { html } from '../html.js';

/** @typedef {import('../../../api-types.js').Role} Role */

/**
 * The roles offered, each with what it lets a person do.
 * @type {[role: Role, what: string][]}
 */
const ROLES = [
  ['requester', 'asks for albums'],
  ['viewer', 'sees, decides nothing'],
  ['approver', 'decides'],
  ['admin', 'everything'],
];

/**
 * A labelled select of the roles; `fromGroups` adds the choice of none (a proxy user's role then comes from their groups).
 * @param {{ id: string, value: Role | null, onChange: (role: Role | null) => void, fromGroups?: boolean }} props
 */
export function RoleSelect({ id, value, onChange, fromGroups = false }) {
  return html`<div class="form-field"><label for=${id}>Role</label>
    <select id=${id} name="role" value=${value ?? ''} onChange=${(/** @type {import('preact').TargetedEvent<HTMLSelectElement>} */ e) => {
      const picked = ROLES.find(([r]) => r === e.currentTarget.value);
      onChange(picked ? picked[0] : null);
    }}>
      ${fromGroups ? html`<option value="">From their groups (ui.auth.roles)</option>` : null}
      ${ROLES.map(([r, what]) => html`<option key=${r} value=${r}>${r} (${what})</option>`)}
    </select>
  </div>`;
}
