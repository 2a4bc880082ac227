// Shown instead of the app to someone the proxy signed in whose groups map to no role, or whose account an admin
// disabled: every API call would answer 403, so rather than error notices and an "Offline" badge, say who they are
// and what an admin must change.
import { html } from '../html.js';

/** @param {{ info: import('../app.js').AuthInfo }} props */
export function NoRolePage({ info }) {
  const user = info.user;
  // app.js shows this page only to someone signed in, who always has a user.
  if (!user) return null;
  const who = user.display_name ? `${user.display_name} (${user.name})` : user.name;
  // A disabled account has no role either; what helps is an admin enabling it, not a mapping of groups.
  if (user.disabled) {
    return html`<main class="centered no-role" data-testid="no-role">
      <h1>Crateflow</h1>
      <div class="notice notice-warning" role="status">
        <p>You are signed in as <strong data-testid="no-role-user">${who}</strong>, but an admin has disabled your account.</p>
        <p>Ask them to enable it again on Crateflow's Users page.</p>
      </div>
      ${info.logout_url ? html`<p><a class="btn" href=${info.logout_url}>Sign out</a></p>` : null}
    </main>`;
  }
  const groups = user.groups;
  const example = groups[0] ?? 'music';
  // One string: htm folds whitespace in template text, which would flatten the YAML.
  return html`<main class="centered no-role" data-testid="no-role">
    <h1>Crateflow</h1>
    <div class="notice notice-warning" role="status">
      <p>You are signed in as <strong data-testid="no-role-user">${who}</strong>,
        but none of your groups gives you a role in Crateflow yet.</p>
      <p>Your groups: <span data-testid="no-role-groups">${groups.length > 0 ? groups.join(', ') : 'none (the proxy sent no Remote-Groups)'}</span></p>
    </div>
    <p>Ask an administrator to map one of your groups to a role (<code>requester</code>, <code>viewer</code>, <code>approver</code> or <code>admin</code>)
      under <code>ui.auth.roles</code> in Crateflow's config.yaml, and restart it:</p>
    <pre data-testid="no-role-example">${`ui:\n  auth:\n    roles:\n      ${example}: viewer`}</pre>
    ${groups.length === 0
      ? html`<p>Without groups, the administrator must first have the sign-in service send them (Authelia sends <code>Remote-Groups</code>).</p>`
      : null}
    ${info.logout_url ? html`<p><a class="btn" href=${info.logout_url}>Sign out</a></p>` : null}
  </main>`;
}
