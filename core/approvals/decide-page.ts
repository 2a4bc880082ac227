import type { QueueItem } from '../queue/queue-item.schema.js';
import type { LinkState } from './link-decisions.js';

/**
 * The decision page: what a person sees on a phone after tapping a link. It is plain HTML with inline styles and no
 * script, so it works in any in-app browser; its only form posts back to the same address.
 */
export function decidePage(state: LinkState, justDecided = false): { status: number; html: string } {
  switch (state.kind) {
    case 'unknown':
      return { status: 404, html: plainPage('Unknown link', '<p>This link is not known here: it may be mistyped, or so old it was forgotten.</p>') };
    case 'live':
      return { status: 200, html: plainPage(titleOf(state.item), `${albumCard(state.item)}${buttons()}<p class="note">Expires ${escapeHtml(new Date(state.link.expires_at).toUTCString())}.</p>`) };
    case 'decided':
      return { status: 200, html: plainPage(titleOf(state.item), `${albumCard(state.item)}<p class="outcome">${escapeHtml(outcomeOf(state.item, justDecided))}</p>`) };
    case 'dead': {
      const why = {
        used: 'This link was used already.',
        revoked: 'This link was revoked.',
        expired: 'This link has expired.',
        decided: 'This album was decided already.',
        gone: 'This link was used already, and its album is no longer in the queue.',
      }[state.reason];
      const after = state.item ? `${albumCard(state.item)}<p class="outcome">${escapeHtml(outcomeOf(state.item, false))}</p>` : '';
      return { status: 410, html: plainPage('Link no longer works', `<p class="why">${escapeHtml(why)}</p>${after}`) };
    }
  }
}

/** One line on what became of an item: shown after a decision and on a dead link's page. */
export function outcomeOf(item: QueueItem, justDecided: boolean): string {
  if (item.status === 'pending') return 'It is still waiting for a decision in the queue.';
  const verb = item.status === 'approved' ? 'Approved' : 'Rejected';
  const by = item.decided_by === undefined ? '' : ` by ${item.decided_by}`;
  const via = item.decided_via === undefined ? '' : ` (${item.decided_via})`;
  const when = item.decided_at === undefined ? '' : ` on ${new Date(item.decided_at).toUTCString()}`;
  const library = item.status === 'approved' ? (item.in_library ? ' The library has it already.' : ' It is on the wishlist.') : '';
  return `${justDecided ? 'Done: ' : ''}${verb}${by}${via}${when}.${library}`;
}

function titleOf(item: QueueItem): string {
  return `${item.artist} – ${item.album ?? item.title ?? ''}`;
}

function albumCard(item: QueueItem): string {
  const cover = item.cover_url !== undefined && /^https?:\/\//i.test(item.cover_url) ? `<img src="${escapeHtml(item.cover_url)}" alt="" width="250" height="250">` : '';
  const name = item.album ?? item.title ?? '';
  const year = item.year === undefined ? '' : ` <span class="year">(${item.year})</span>`;
  // A request says who asked and what they wrote; a candidate, where it came from.
  const origin = (shown: typeof item): string => shown.requested_by === undefined
    ? `<p class="source">From ${escapeHtml(shown.source)}</p>`
    : `<p class="source">Requested by ${escapeHtml(shown.requested_by)}</p>${shown.note === undefined ? '' : `<p class="note">“${escapeHtml(shown.note)}”</p>`}`;
  const reasons = (item.reasons ?? []).slice(0, 5).map((reason) => `<li>${escapeHtml(reason.text)}</li>`).join('');
  return `<div class="card">${cover}<h1>${escapeHtml(name)}${year}</h1><p class="artist">${escapeHtml(item.artist)}</p>${reasons ? `<ul>${reasons}</ul>` : ''}${origin(item)}</div>`;
}

function buttons(): string {
  // A form, not links: only a POST decides, so previewers and prefetchers that follow links change nothing.
  return '<form method="post"><button name="action" value="approve" class="approve">Approve</button><button name="action" value="reject" class="reject">Reject</button></form>';
}

/** A whole page around `body` (HTML the caller escaped). */
export function plainPage(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><link rel="icon" href="/assets/icon.svg" type="image/svg+xml"><title>${escapeHtml(title)} · Crateflow</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
}

const STYLE = [
  'body{margin:0;font-family:system-ui,sans-serif;background:#f6f6f4;color:#1d1d1b}',
  'main{max-width:28rem;margin:0 auto;padding:1.25rem}',
  '.card img{display:block;width:100%;height:auto;max-width:250px;border-radius:6px;margin:0 auto 1rem}',
  'h1{font-size:1.4rem;margin:.2rem 0}.artist{font-size:1.1rem;margin:0 0 .6rem}.year,.source,.note{color:#5b5b57}',
  'ul{padding-left:1.2rem}form{display:flex;gap:.75rem;margin:1.25rem 0}',
  'button{flex:1;font-size:1.1rem;padding:.9rem;border:0;border-radius:6px;color:#fff;cursor:pointer}',
  '.approve{background:#1f7a3a}.reject{background:#a12c2c}.outcome,.why{font-size:1.05rem}',
  '@media (prefers-color-scheme:dark){body{background:#161615;color:#ececea}.year,.source,.note{color:#a9a9a3}}',
].join('');

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
