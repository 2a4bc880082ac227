// "Add": search MusicBrainz through Crateflow and put an album in the queue or straight on the wishlist. Someone who
// may request but not decide (a household's requester) asks for the album instead, with a note for the admin.
// A real modal <dialog>: the page behind is inert (focus stays inside), Esc closes it, focus returns to the opener.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../html.js';
import { ApiError, isAbort } from '../api.js';
import { proposeByMbid, requestByMbid, searchReleaseGroups, wishByMbid } from '../endpoints.js';
import { ErrorNotice, errorText, toast } from './notice.js';
import { useModal } from './modal.js';
import { CoverImage } from './cover-image.js';

/** @typedef {import('../../../api-types.js').ReleaseGroupResult} ReleaseGroupResult */
/** @typedef {import('../../../api-types.js').QueueAddResult} QueueAddResult */

const PAUSE_MS = 300;
/** The server's limit for a request's note. */
const NOTE_MAX = 500;

/**
 * @typedef {object} AddButtonProps
 * @property {() => void} [onAdded] runs after an album was added or requested (the page reloads)
 * @property {string} [label]
 * @property {boolean} [primary]
 * @property {boolean} [requesting] the user's additions are requests, which an admin decides
 */

/**
 * The button that opens the dialog, and the dialog.
 * @param {AddButtonProps} props
 */
export function AddButton({ onAdded, label = 'Add', primary = true, requesting = false }) {
  const [open, setOpen] = useState(false);
  return html`<button type="button" class=${primary ? 'btn btn-primary btn-add' : 'btn btn-add'} aria-haspopup="dialog" onClick=${() => setOpen(true)}>${label}</button>
    ${open ? html`<${AddDialog} onClose=${() => setOpen(false)} onAdded=${onAdded} requesting=${requesting} />` : null}`;
}

/**
 * Why a requester need not ask for a result, or '' when they may.
 * @param {ReleaseGroupResult} r
 * @returns {string}
 */
export function requestBlocker(r) {
  if (r.in_library) return 'Already in your library';
  if (r.wishlisted) return 'Already wanted';
  return r.queued ? 'Already requested' : '';
}

/**
 * What became of a request, in the requester's words, and the flags its search result has now.
 * @param {QueueAddResult} answer
 * @returns {{ text: string, added: boolean, flags: Partial<ReleaseGroupResult> }}
 */
export function requestOutcome(answer) {
  const [item] = answer.items;
  if (item) {
    return item.status === 'approved'
      ? { text: 'Approved automatically', added: true, flags: { wishlisted: true } }
      : { text: 'Requested — waiting for an admin', added: true, flags: { queued: true } };
  }
  const match = answer.skipped[0]?.duplicate_of;
  if (!match) return { text: 'Nothing was requested', added: false, flags: {} };
  if (match.in === 'library') return { text: 'Already in your library', added: false, flags: { in_library: true } };
  if (match.in === 'wishlist' || match.status === 'approved') return { text: 'Already wanted', added: false, flags: { wishlisted: true } };
  if (match.status === 'rejected') return { text: 'Declined before', added: false, flags: { rejected: true } };
  return { text: 'Already requested', added: false, flags: { queued: true } };
}

/**
 * Why a button is pointless for a result, or '' when it is not.
 * @param {ReleaseGroupResult} r
 * @returns {{ queue: string, wishlist: string }}
 */
export function addBlockers(r) {
  if (r.in_library) return { queue: 'Already in your library', wishlist: 'Already in your library' };
  if (r.wishlisted) return { queue: 'Already on the wishlist', wishlist: 'Already on the wishlist' };
  return {
    queue: r.queued ? 'Already waiting in the queue' : r.rejected ? 'Rejected before: restore it from the Rejected view' : '',
    wishlist: '',
  };
}

/** @param {ReleaseGroupResult} r */
const typesOf = (r) => [r.primary_type, ...r.secondary_types].filter(Boolean).join(' + ');

/** @param {{ onClose: () => void, onAdded?: () => void, requesting: boolean }} props */
function AddDialog({ onClose, onAdded, requesting }) {
  const dialog = useModal(onClose);
  const [text, setText] = useState('');
  const [note, setNote] = useState('');
  const [answers, setAnswers] = useState(/** @type {Readonly<Record<string, string>>} */ ({}));
  const [q, setQ] = useState('');
  const [results, setResults] = useState(/** @type {ReleaseGroupResult[] | null} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [searching, setSearching] = useState(false);
  const [busy, setBusy] = useState('');
  const timer = useRef(0);

  useEffect(() => () => clearTimeout(timer.current), []);
  useEffect(() => {
    if (!q) {
      setResults(null);
      setError(null);
      return undefined;
    }
    const controller = new AbortController();
    setSearching(true);
    searchReleaseGroups(q, controller.signal)
      .then((answer) => {
        setResults(answer.items);
        setError(null);
      })
      .catch((err) => {
        if (!isAbort(err)) setError(err);
      })
      .finally(() => {
        if (!controller.signal.aborted) setSearching(false);
      });
    return () => controller.abort();
  }, [q]);

  /** @param {ReleaseGroupResult} r */
  async function request(r) {
    setBusy(`${r.mbid}:request`);
    const name = `${r.artist} — ${r.title}`;
    try {
      const outcome = requestOutcome(await requestByMbid(r.mbid, note.trim()));
      toast(`${name}: ${outcome.text}`, outcome.added ? 'ok' : 'error');
      setAnswers((old) => ({ ...old, [r.mbid]: outcome.text }));
      setResults((list) => list && list.map((x) => (x.mbid === r.mbid ? { ...x, ...outcome.flags } : x)));
      if (outcome.added) {
        setNote('');
        onAdded?.();
      }
    } catch (err) {
      toast(errorText(err), 'error');
    } finally {
      setBusy('');
    }
  }

  /**
   * @param {ReleaseGroupResult} r
   * @param {'queue' | 'wishlist'} where
   */
  async function add(r, where) {
    setBusy(`${r.mbid}:${where}`);
    const name = `${r.artist} — ${r.title}`;
    try {
      if (where === 'queue') {
        const answer = await proposeByMbid(r.mbid);
        const skipped = answer.skipped[0];
        if (answer.items.length === 0 && skipped) {
          toast(`${name} was not added: it is already in the ${skipped.duplicate_of.in}`, 'error');
        } else {
          toast(`Added ${name} to the queue`);
        }
      } else {
        await wishByMbid(r.mbid);
        toast(`Added ${name} to the wishlist`);
      }
      setResults((list) => list && list.map((x) => (x.mbid === r.mbid ? { ...x, queued: x.queued || where === 'queue', wishlisted: x.wishlisted || where === 'wishlist' } : x)));
      onAdded?.();
    } catch (err) {
      toast(err instanceof ApiError && err.status === 409 ? `${name} is already on the wishlist` : errorText(err), 'error');
    } finally {
      setBusy('');
    }
  }

  return html`<dialog ref=${dialog} class="modal add-dialog" aria-labelledby="add-title">
    <div class="modal-head">
      <h2 id="add-title">${requesting ? 'Request an album' : 'Add an album'}</h2>
      <button type="button" class="btn btn-small btn-ghost" aria-label="Close" onClick=${onClose}>✕</button>
    </div>
    <p class="muted add-hint">Search MusicBrainz by album title, or by "Artist - Album".${requesting ? ' An admin sees your request and your note.' : ''}</p>
    <div class="search">
      <input type="search" aria-label="Search MusicBrainz" placeholder="e.g. Broadcast - Tender Buttons" value=${text} autofocus
        onInput=${(/** @type {import('preact').TargetedEvent<HTMLInputElement>} */ e) => {
          const next = e.currentTarget.value;
          setText(next);
          clearTimeout(timer.current);
          timer.current = window.setTimeout(() => setQ(next.trim()), PAUSE_MS);
        }}
        onKeyDown=${(/** @type {import('preact').TargetedKeyboardEvent<HTMLInputElement>} */ e) => {
          if (e.key !== 'Enter') return;
          clearTimeout(timer.current);
          setQ(e.currentTarget.value.trim());
        }} />
    </div>
    ${requesting ? html`<div class="add-note">
      <label for="add-note">Note for the admin <span class="muted">(optional)</span></label>
      <textarea id="add-note" rows="2" maxlength=${NOTE_MAX} placeholder="e.g. the remaster, please" value=${note}
        onInput=${(/** @type {import('preact').TargetedEvent<HTMLTextAreaElement>} */ e) => setNote(e.currentTarget.value)}></textarea>
    </div>` : null}
    <${ErrorNotice} error=${error} />
    <div class="add-results" aria-busy=${searching ? 'true' : 'false'} aria-live="polite">
      ${searching && !results ? html`<p class="muted">Searching…</p>` : null}
      ${results && results.length === 0 ? html`<p class="empty">Nothing on MusicBrainz matches "${q}".</p>` : null}
      ${results ? html`<ul class="plain-list add-list" aria-label="Search results">
        ${results.map((r) => requesting
          ? html`<${RequestResult} key=${r.mbid} result=${r} busy=${busy} answer=${answers[r.mbid]} onRequest=${request} />`
          : html`<${Result} key=${r.mbid} result=${r} busy=${busy} onAdd=${add} />`)}
      </ul>` : null}
    </div>
  </dialog>`;
}

/**
 * The cover and facts of a search result, with what Crateflow knows of it and, when given, why a button is off.
 * @param {{ result: ReleaseGroupResult, why: string, whyId: string, flags: import('preact').ComponentChildren }} props
 */
function ResultWhat({ result: r, why, whyId, flags }) {
  return html`<${CoverImage} url=${`${r.cover_url}?size=250&missing=empty`} name=${r.artist} size=${64} />
    <div class="add-what">
      <span class="release-artist">${r.artist}</span>
      <span class="release-work">${r.title}</span>
      <span class="muted add-meta">${[r.year, typesOf(r)].filter(Boolean).join(' · ')}</span>
      <span class="add-flags">${flags}</span>
      ${why ? html`<span class="muted add-why" id=${whyId}>${why}</span>` : null}
    </div>`;
}

/**
 * @param {{ result: ReleaseGroupResult, busy: string, onAdd: (r: ReleaseGroupResult, where: 'queue' | 'wishlist') => void }} props
 */
function Result({ result: r, busy, onAdd }) {
  const blockers = addBlockers(r);
  const name = `${r.artist} — ${r.title}`;
  const why = [...new Set([blockers.queue, blockers.wishlist].filter(Boolean))].join('. ');
  const whyId = `add-why-${r.mbid}`;
  return html`<li class="add-result" data-mbid=${r.mbid}>
    <${ResultWhat} result=${r} why=${why} whyId=${whyId} flags=${html`
      ${r.in_library ? html`<span class="badge badge-ok">In library</span>` : null}
      ${r.queued ? html`<span class="badge badge-info">Queued</span>` : null}
      ${r.wishlisted ? html`<span class="badge badge-info">Wishlisted</span>` : null}
      ${r.rejected ? html`<span class="badge badge-bad">Rejected</span>` : null}`} />
    <div class="add-actions">
      <button type="button" class="btn btn-small" aria-label=${`Add ${name} to the queue`} aria-describedby=${blockers.queue ? whyId : undefined}
        disabled=${Boolean(blockers.queue) || busy !== ''} title=${blockers.queue || undefined} onClick=${() => onAdd(r, 'queue')}>Add to queue</button>
      <button type="button" class="btn btn-small" aria-label=${`Add ${name} to the wishlist`} aria-describedby=${blockers.wishlist ? whyId : undefined}
        disabled=${Boolean(blockers.wishlist) || busy !== ''} title=${blockers.wishlist || undefined} onClick=${() => onAdd(r, 'wishlist')}>Add to wishlist</button>
    </div>
  </li>`;
}

/**
 * A result as a requester sees it: one Request button, and after it what became of the request, in words.
 * @param {{ result: ReleaseGroupResult, busy: string, answer: string | undefined, onRequest: (r: ReleaseGroupResult) => void }} props
 */
function RequestResult({ result: r, busy, answer, onRequest }) {
  const blocker = requestBlocker(r);
  const name = `${r.artist} — ${r.title}`;
  const whyId = `add-why-${r.mbid}`;
  return html`<li class="add-result" data-mbid=${r.mbid}>
    <${ResultWhat} result=${r} why=${answer ? '' : blocker} whyId=${whyId} flags=${html`
      ${r.in_library ? html`<span class="badge badge-ok">In library</span>` : null}
      ${answer ? html`<span class="add-answer" data-testid="request-answer">${answer}</span>` : null}`} />
    <div class="add-actions">
      <button type="button" class="btn btn-small" aria-label=${`Request ${name}`} aria-describedby=${blocker && !answer ? whyId : undefined}
        disabled=${Boolean(blocker) || Boolean(answer) || busy !== ''} title=${blocker || undefined} onClick=${() => onRequest(r)}>${busy === `${r.mbid}:request` ? 'Requesting…' : 'Request'}</button>
    </div>
  </li>`;
}
