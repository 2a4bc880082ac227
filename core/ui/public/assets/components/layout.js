// The frame around every page: brand, navigation (what the user's role reaches), who is signed in, live status
// and sign-out.
import { useState } from 'preact/hooks';
import { html } from '../html.js';
import { logOut } from '../endpoints.js';
import { navigate } from '../router.js';
import { stopLive, useLiveStatus } from '../live.js';
import { errorText, toast } from './notice.js';
import { PreviewPlayer } from './preview-player.js';
import { RequestsCount } from './requests-count.js';

/** @typedef {import('../app.js').Session} Session */

/**
 * Each tab, and who sees it. "My requests" is for those whose additions are requests (no `decide`): an approver's
 * additions are decided at once. Keep in step with PAGES in app.js.
 * @type {[href: string, label: string, shown: (session: Session) => boolean][]}
 */
const NAV = [
  ['/', 'Dashboard', (s) => s.may('read')],
  ['/my-requests', 'My requests', (s) => s.may('request') && !s.may('decide')],
  ['/queue', 'Queue', (s) => s.may('read')],
  ['/requests', 'Requests', (s) => s.may('read')],
  ['/wishlist', 'Wishlist', (s) => s.may('read')],
  ['/downloads', 'Downloads', (s) => s.may('read')],
  ['/library', 'Library', (s) => s.may('read')],
  ['/sources', 'Sources', (s) => s.may('read')],
  ['/webhooks', 'Webhooks', (s) => s.may('read')],
  ['/users', 'Users', (s) => s.may('admin')],
];

/** @type {Record<import('../live.js').LiveStatus, string>} */
const LIVE_LABELS = { live: 'Live', connecting: 'Reconnecting…', off: 'Offline' };

/**
 * @typedef {object} LayoutProps
 * @property {import('../app.js').Session} session
 * @property {string} path
 * @property {(info: import('../app.js').AuthInfo) => void} onSignedOut
 * @property {import('preact').ComponentChildren} children
 */

/** @param {LayoutProps} props */
export function Layout({ session, path, onSignedOut, children }) {
  const live = useLiveStatus();
  const [busy, setBusy] = useState(false);
  const canSignOut = session.info.type === 'basic' && session.info.authenticated;

  async function signOut() {
    setBusy(true);
    try {
      await logOut();
      stopLive();
      navigate('/login', { replace: true });
      onSignedOut({ ...session.info, authenticated: false, user: null });
    } catch (err) {
      toast(errorText(err), 'error');
      setBusy(false);
    }
  }

  return html`<div class="layout">
    <a class="skip-link" href="#main">Skip to content</a>
    <header class="topbar">
      <a class="brand" href="/" aria-label=${session.may('read') ? 'Crateflow dashboard' : 'Crateflow home'}><img src="/assets/icon.svg" alt="" width="24" height="24" />Crateflow</a>
      <nav class="nav" aria-label="Main">
        ${NAV.filter(([, , shown]) => shown(session)).map(([href, label]) => html`<a key=${href} href=${href} aria-current=${path === href ? 'page' : undefined}>${label}${
          href === '/requests' ? html`<${RequestsCount} />` : null}</a>`)}
      </nav>
      <div class="user">
        ${session.may('read') ? html`<span class=${`live live-${live}`} title="Live updates" aria-label=${`Live updates: ${LIVE_LABELS[live]}`}>${LIVE_LABELS[live]}</span>` : null}
        ${session.userName
          ? html`<span class="user-name" data-testid="user-name" title=${`Role: ${session.role}`}>${session.userName}<span class="user-role"> · ${session.role}</span></span>`
          : null}
        ${canSignOut ? html`<button type="button" class="btn btn-small" onClick=${signOut} disabled=${busy}>Sign out</button>` : null}
        ${session.info.type === 'proxy' && session.info.logout_url
          ? html`<a class="btn btn-small" href=${session.info.logout_url}>Sign out</a>`
          : null}
      </div>
    </header>
    <main id="main" class="content" tabindex="-1">${children}</main>
    <${PreviewPlayer} />
  </div>`;
}
