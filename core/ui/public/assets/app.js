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
import { MyRequestsPage } from './pages/my-requests.js';
import { RequestsPage } from './pages/requests.js';
import { UsersPage } from './pages/users.js';

/** @typedef {import('../../api-types.js').AuthInfo} AuthInfo */
/** @typedef {import('../../api-types.js').Scope} Scope */

/**
 * What a page gets: who is signed in and what they may do.
 * @typedef {object} Session
 * @property {AuthInfo} info
 * @property {string} role the user's role, `none` without one, `admin` when authentication is disabled
 * @property {(scope: Scope) => boolean} may whether the server lets this user do what `scope` covers
 * @property {string | null} userName
 */

/**
 * The props of every page.
 * @typedef {object} PageProps
 * @property {Session} session
 * @property {URLSearchParams} params the query string, which holds the page's state (filters, paging)
 */

/**
 * A page, and the scope whose calls it is made of (without it every call of the page would answer 403).
 * @typedef {object} PageEntry
 * @property {string} title
 * @property {(props: PageProps) => unknown} component
 * @property {Scope} needs
 */

/** Keep in step with UI_PAGES in core/ui/serve-ui.ts (which adds /login) and NAV in components/layout.js. */
/** @type {Readonly<Record<string, PageEntry>>} */
const PAGES = {
  '/': { title: 'Dashboard', component: DashboardPage, needs: 'read' },
  '/queue': { title: 'Queue', component: QueuePage, needs: 'read' },
  '/requests': { title: 'Requests', component: RequestsPage, needs: 'read' },
  '/my-requests': { title: 'My requests', component: MyRequestsPage, needs: 'request' },
  '/wishlist': { title: 'Wishlist', component: WishlistPage, needs: 'read' },
  '/downloads': { title: 'Downloads', component: DownloadsPage, needs: 'read' },
  '/library': { title: 'Library', component: LibraryPage, needs: 'read' },
  '/sources': { title: 'Sources', component: SourcesPage, needs: 'read' },
  '/webhooks': { title: 'Webhooks', component: WebhooksPage, needs: 'read' },
  '/users': { title: 'Users', component: UsersPage, needs: 'admin' },
};

/** @type {readonly Scope[]} */
const ALL_SCOPES = ['read', 'request', 'decide', 'admin'];

/**
 * What the signed-in user may do: the scopes the server names for them. With authentication disabled the server
 * lets every request through, so the UI offers everything; an identity the server grants no role may do nothing
 * (its calls answer 403).
 * @param {AuthInfo} info
 * @returns {Session}
 */
export function sessionOf(info) {
  const role = info.user?.role ?? (info.enabled ? 'none' : 'admin');
  const scopes = new Set(info.user ? info.user.scopes : info.enabled ? [] : ALL_SCOPES);
  return {
    info,
    role,
    may: (scope) => scopes.has(scope),
    userName: info.user ? info.user.display_name || info.user.name : null,
  };
}

/**
 * Where "/" leads: the dashboard for those who may read, a requester's own requests otherwise.
 * @param {Session} session
 */
const homeOf = (session) => (!session.may('read') && session.may('request') ? '/my-requests' : '/');

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
  // The event stream is for those who may read; a requester's pages ask again now and then instead.
  const mayRead = Boolean(info && sessionOf(info).may('read'));
  const home = info ? homeOf(sessionOf(info)) : '/';

  useEffect(() => {
    if (info && (!info.enabled || info.authenticated) && !withoutRole && mayRead) startLive();
    else stopLive();
  }, [info]);

  useEffect(() => {
    if (info && (!info.enabled || info.authenticated) && path === '/' && home !== '/') navigate(home, { replace: true });
  }, [info, path, home]);

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
  if (onLoginPage || (path === '/' && home !== '/')) return html`<p class="boot">Loading Crateflow…</p>`;
  if (withoutRole) return html`<${NoRolePage} info=${info} />`;

  const session = sessionOf(info);
  const content = !page
    ? html`<${NotFound} home=${home} />`
    : session.may(page.needs)
      ? html`<${page.component} session=${session} params=${params} />`
      : html`<${NotAllowed} title=${page.title} role=${session.role} home=${home} />`;
  return html`<${SiteNotice} text=${info.notice} /><${Layout} session=${session} path=${path} onSignedOut=${(/** @type {AuthInfo} */ next) => setInfo(keepNotice(next))}>
    ${content}
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

/** @param {{ home: string }} props */
function NotFound({ home }) {
  return html`<section><h1>Page not found</h1><p>There is no page at this address. <a href=${home}>Go to ${home === '/' ? 'the dashboard' : 'your requests'}</a>.</p></section>`;
}

/**
 * A page whose calls the server would refuse to this user (a requester opening /queue from an old bookmark).
 * @param {{ title: string, role: string, home: string }} props
 */
function NotAllowed({ title, role, home }) {
  return html`<section aria-labelledby="not-allowed-title">
    <h1 id="not-allowed-title">${title}</h1>
    <p class="notice notice-info" data-testid="not-allowed">You are signed in as ${role}, which does not include this page. An admin can change your role on the Users page.</p>
    <p><a href=${home}>Go to ${home === '/' ? 'the dashboard' : 'your requests'}</a></p>
  </section>`;
}
