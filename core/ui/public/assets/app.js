// The shell: asks the server who we are, keeps the user on the login form or in the app, and picks the page.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import { setUnauthorizedHandler } from './api.js';
import { getAuthInfo } from './endpoints.js';
import { currentUrl, navigate, safeNext, useLocation } from './router.js';
import { startLive, stopLive } from './live.js';
import { Layout } from './components/layout.js';
import { ErrorNotice, Toasts } from './components/notice.js';
import { LoginPage } from './pages/login.js';
import { DashboardPage } from './pages/dashboard.js';
import { QueuePage } from './pages/queue.js';
import { WishlistPage } from './pages/wishlist.js';
import { DownloadsPage } from './pages/downloads.js';
import { LibraryPage } from './pages/library.js';
import { SourcesPage } from './pages/sources.js';
import { WebhooksPage } from './pages/webhooks.js';
import { NoRolePage } from './pages/no-role.js';

/** @typedef {import('../../api-types.js').AuthInfo} AuthInfo */
/** @typedef {import('../../api-types.js').Role} Role */

/**
 * What a page gets: who is signed in and what they may do.
 * @typedef {object} Session
 * @property {AuthInfo} info
 * @property {string} role the user's role, `none` without one, `admin` when authentication is disabled
 * @property {(needed: Role) => boolean} can
 * @property {string | null} userName
 */

/**
 * The props of every page.
 * @typedef {object} PageProps
 * @property {Session} session
 * @property {URLSearchParams} params the query string, which holds the page's state (filters, paging)
 */

/** Keep in step with UI_PAGES in core/ui/serve-ui.ts (which adds /login) and NAV in components/layout.js. */
/** @type {Readonly<Record<string, { title: string, component: (props: PageProps) => unknown }>>} */
const PAGES = {
  '/': { title: 'Dashboard', component: DashboardPage },
  '/queue': { title: 'Queue', component: QueuePage },
  '/wishlist': { title: 'Wishlist', component: WishlistPage },
  '/downloads': { title: 'Downloads', component: DownloadsPage },
  '/library': { title: 'Library', component: LibraryPage },
  '/sources': { title: 'Sources', component: SourcesPage },
  '/webhooks': { title: 'Webhooks', component: WebhooksPage },
};

/** @type {Readonly<Record<string, number>>} */
const RANK = { viewer: 1, approver: 2, admin: 3 };

/**
 * What the signed-in user may do. With authentication disabled the server lets every request through, so
 * the UI offers everything; an identity the server grants no role may do nothing (its calls answer 403).
 * @param {AuthInfo} info
 * @returns {Session}
 */
export function sessionOf(info) {
  const role = info.user?.role ?? (info.enabled ? 'none' : 'admin');
  return {
    info,
    role,
    can: (needed) => (RANK[role] ?? 0) >= (RANK[needed] ?? Infinity),
    userName: info.user ? info.user.display_name || info.user.name : null,
  };
}

export function App() {
  const { path, params } = useLocation();
  const [info, setInfo] = useState(/** @type {AuthInfo | null} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [sessionNote, setSessionNote] = useState('');

  const loadInfo = useCallback(async () => {
    setError(null);
    try {
      setInfo(await getAuthInfo());
    } catch (err) {
      setError(err);
    }
  }, []);

  useEffect(() => {
    loadInfo();
  }, []);

  // An API call answered 401: the session expired or was ended elsewhere. Back to the login form, which
  // returns here afterwards; in proxy mode there is no form, so ask the server again and say what happened.
  useEffect(() => {
    setUnauthorizedHandler(() => {
      stopLive();
      setInfo((old) => (old ? { ...old, authenticated: false, user: null } : old));
      setSessionNote('Your session has ended. Sign in again to continue.');
    });
  }, []);

  const needsLogin = info && info.enabled && !info.authenticated;
  const onLoginPage = path === '/login';

  useEffect(() => {
    if (!info) return;
    if (needsLogin && info.type === 'basic' && !onLoginPage) navigate(`/login?next=${encodeURIComponent(currentUrl())}`, { replace: true });
    if ((!info.enabled || info.authenticated) && onLoginPage) navigate(safeNext(params.get('next')), { replace: true });
  }, [info, needsLogin, onLoginPage]);

  // Someone signed in whose groups map to no role may call nothing (403): no live updates, the no-role page instead.
  const withoutRole = Boolean(info && info.enabled && info.authenticated && sessionOf(info).role === 'none');

  useEffect(() => {
    if (info && (!info.enabled || info.authenticated) && !withoutRole) startLive();
    else stopLive();
  }, [info]);

  const page = PAGES[path];
  useEffect(() => {
    document.title = onLoginPage ? 'Sign in · Crateflow' : `${page ? page.title : 'Not found'} · Crateflow`;
  }, [path]);

  if (error) {
    return html`<main class="centered"><h1>Crateflow</h1><${ErrorNotice} error=${error} onRetry=${loadInfo} /></main>`;
  }
  if (!info) return html`<p class="boot">Loading Crateflow…</p>`;

  if (needsLogin) {
    if (info.type !== 'basic') {
      return html`<main class="centered"><h1>Crateflow</h1>
        <div class="notice notice-error" role="alert">You are not signed in. Crateflow expects the proxy in front of it to identify you; open it through that proxy.</div>
        <button type="button" class="btn" onClick=${loadInfo}>Check again</button></main>`;
    }
    if (!onLoginPage) return html`<p class="boot">Loading Crateflow…</p>`;
    return html`<${SiteNotice} text=${info.notice} /><${LoginPage} note=${sessionNote} onSignedIn=${(/** @type {AuthInfo} */ next) => {
      setSessionNote('');
      setInfo(keepNotice(next));
    }} /><${Toasts} />`;
  }
  if (onLoginPage) return html`<p class="boot">Loading Crateflow…</p>`;
  if (withoutRole) return html`<${NoRolePage} info=${info} />`;

  const session = sessionOf(info);
  const Page = page ? page.component : NotFound;
  return html`<${SiteNotice} text=${info.notice} /><${Layout} session=${session} path=${path} onSignedOut=${(/** @type {AuthInfo} */ next) => setInfo(keepNotice(next))}>
    <${Page} session=${session} params=${params} />
  </${Layout}><${Toasts} />`;

  /**
   * The login and logout answers describe the session only; the page-wide notice came with the first /auth/info.
   * @param {AuthInfo} next
   */
  function keepNotice(next) {
    return info?.notice === undefined ? next : { ...next, notice: info.notice };
  }
}

/**
 * `ui.notice` from the config, above every page (the demo says its music services are local fakes).
 * @param {{ text: string | undefined }} props
 */
function SiteNotice({ text }) {
  return text ? html`<div class="site-notice" role="note" data-testid="site-notice">${text}</div>` : null;
}

function NotFound() {
  return html`<section><h1>Page not found</h1><p>There is no page at this address. <a href="/">Go to the dashboard</a>.</p></section>`;
}
