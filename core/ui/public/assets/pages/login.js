// The sign-in form (basic mode). Errors stay inline next to the form; a lock-out says how long to wait.
import { useState } from 'preact/hooks';
import { html } from '../html.js';
import { ApiError } from '../api.js';
import { logIn } from '../endpoints.js';
import { errorText } from '../components/notice.js';

/**
 * @param {unknown} err
 * @returns {string}
 */
export function loginErrorMessage(err) {
  if (err instanceof ApiError) {
    if (err.status === 401) return 'Wrong username or password.';
    if (err.status === 429) {
      const wait = err.retryAfter ? ` Try again in ${formatWait(err.retryAfter)}.` : ' Try again later.';
      return `Too many failed sign-in attempts.${wait}`;
    }
  }
  return errorText(err);
}

/** @param {number} seconds */
function formatWait(seconds) {
  return seconds < 90 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`;
}

/** @param {{ note: string, onSignedIn: (info: import('../app.js').AuthInfo) => void }} props */
export function LoginPage({ note, onSignedIn }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  /** @param {SubmitEvent} event */
  async function submit(event) {
    event.preventDefault();
    setBusy(true);
    setError('');
    try {
      const info = await logIn({ username, password });
      onSignedIn(info);
    } catch (err) {
      setError(loginErrorMessage(err));
      setPassword('');
      setBusy(false);
    }
  }

  return html`<main class="login">
    <form class="login-card" onSubmit=${submit} aria-describedby=${error ? 'login-error' : undefined}>
      <h1><img src="/assets/icon.svg" alt="" width="32" height="32" /> Sign in to Crateflow</h1>
      ${note && !error ? html`<p class="notice notice-info" role="status">${note}</p>` : null}
      <label for="login-username">Username</label>
      <input id="login-username" name="username" autocomplete="username" required autofocus value=${username}
        onInput=${(/** @type {import('preact').TargetedEvent<HTMLInputElement>} */ e) => setUsername(e.currentTarget.value)} aria-invalid=${error ? 'true' : undefined} />
      <label for="login-password">Password</label>
      <input id="login-password" name="password" type="password" autocomplete="current-password" required value=${password}
        onInput=${(/** @type {import('preact').TargetedEvent<HTMLInputElement>} */ e) => setPassword(e.currentTarget.value)} aria-invalid=${error ? 'true' : undefined} />
      ${error ? html`<p id="login-error" class="field-error" role="alert">${error}</p>` : null}
      <button type="submit" class="btn btn-primary" disabled=${busy}>${busy ? 'Signing in…' : 'Sign in'}</button>
    </form>
  </main>`;
}
