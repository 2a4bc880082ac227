// Why an album is proposed, as short chips ("Similar to Boards of Canada (+3)", "New release"); the full text
// is each chip's tooltip.
import { html } from '../html.js';

/** @typedef {NonNullable<import('../../../api-types.js').QueueItem['reasons']>[number]} Reason */

const MAX_CHIP = 32;

/** Names of the built-in sources as their services spell them; other sources show their configured name. */
/** @type {Readonly<Record<string, string>>} */
const SOURCE_NAMES = { listenbrainz: 'ListenBrainz', lastfm: 'Last.fm', manual: 'Added by hand', api: 'API' };

/** @param {string} source */
export const sourceLabel = (source) => SOURCE_NAMES[source] ?? source;

/**
 * @param {string} text
 * @returns {string}
 */
const shorten = (text) => (text.length > MAX_CHIP ? `${text.slice(0, MAX_CHIP - 1).trimEnd()}…` : text);

/**
 * A reason in a few words.
 * @param {Reason} reason
 * @returns {string}
 */
export function reasonLabel(reason) {
  const artists = (reason.refs ?? []).filter((ref) => ref.type === 'artist');
  switch (reason.kind) {
    case 'similar-artists': {
      const [first] = artists;
      if (!first) return shorten(reason.text);
      return shorten(`Similar to ${first.name}`) + (artists.length > 1 ? ` (+${artists.length - 1})` : '');
    }
    case 'new-release':
      return 'New release';
    case 'listening':
      return 'From your listening';
    default:
      return shorten(reason.text);
  }
}

/**
 * A score from a discovery source (0 to 1) as a percentage; other scales (scores sent through the API) say
 * nothing comparable, so they get no label.
 * @param {number | undefined} score
 * @returns {string | undefined}
 */
export function matchLabel(score) {
  if (score === undefined || score < 0 || score > 1) return undefined;
  return `${Math.round(score * 100)}% match`;
}

/** @param {{ reasons: readonly Reason[] | undefined, source: string }} props */
export function ReasonChips({ reasons, source }) {
  return html`<ul class="reason-chips" aria-label="Why it is proposed">
    ${(reasons ?? []).map((reason, i) => html`<li key=${i} class=${`reason-chip reason-${reason.kind}`} title=${reason.text}>${reasonLabel(reason)}</li>`)}
    <li class="reason-chip reason-source" title=${`Source: ${source}`}>${sourceLabel(source)}</li>
  </ul>`;
}
