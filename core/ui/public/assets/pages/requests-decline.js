// Declining a request: a short reason for the person who asked (optional, at most 500 characters), then Decline.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../html.js';

/** The server's limit for a reason. */
const REASON_MAX = 500;

/**
 * @typedef {object} DeclineFormProps
 * @property {string} id the request's id, which keeps the field's id unique on the page
 * @property {string} name "Artist — Album"
 * @property {string} requester who reads the reason
 * @property {boolean} busy
 * @property {(reason: string) => void} onDecline
 * @property {() => void} onKeep closes the form without deciding
 */

/** @param {DeclineFormProps} props */
export function DeclineForm({ id, name, requester, busy, onDecline, onKeep }) {
  const [reason, setReason] = useState('');
  const field = useRef(/** @type {HTMLTextAreaElement | null} */ (null));
  const fieldId = `decline-reason-${id}`;
  useEffect(() => field.current?.focus(), []);

  /** @param {SubmitEvent} event */
  function submit(event) {
    event.preventDefault();
    onDecline(reason.trim());
  }

  return html`<form class="decline-form" aria-label=${`Decline ${name}`} onSubmit=${submit}
    onKeyDown=${(/** @type {KeyboardEvent} */ e) => e.key === 'Escape' && onKeep()}>
    <label for=${fieldId}>Why? <span class="muted">${requester} reads this (optional)</span></label>
    <textarea id=${fieldId} ref=${field} rows="2" maxlength=${REASON_MAX} value=${reason}
      onInput=${(/** @type {import('preact').TargetedEvent<HTMLTextAreaElement>} */ e) => setReason(e.currentTarget.value)}></textarea>
    <div class="request-actions">
      <button type="submit" class="btn btn-reject" disabled=${busy}>${busy ? 'Declining…' : 'Decline request'}</button>
      <button type="button" class="btn btn-ghost" disabled=${busy} onClick=${onKeep}>Keep it</button>
    </div>
  </form>`;
}
