import type { RunCounts } from './add-candidates.js';

// A source's explanation goes into the job as it is, up to this length.
const MAX_NOTE_CHARS = 300;

/**
 * Why a completed run added nothing, in words for the Sources page and the empty queue: the source's own
 * explanation when it gave one (`run.explain`), else what the counts say. Undefined when the run added something.
 *
 * @example
 * explainEmptyRun({ added: 0, duplicate: 2, owned: 5, rejected_before: 1, invalid: 0 }, undefined)
 * // 'everything it found is known already: 5 in your library, 2 queued or on the wishlist, 1 rejected before'
 */
export function explainEmptyRun(counts: RunCounts, explanation: string | undefined): string | undefined {
  if (counts.added > 0) return undefined;
  if (explanation !== undefined && explanation.trim() !== '') {
    const text = explanation.trim();
    return text.length > MAX_NOTE_CHARS ? `${text.slice(0, MAX_NOTE_CHARS)}…` : text;
  }
  const known = [
    counts.owned > 0 ? `${counts.owned} in your library` : '',
    counts.duplicate > 0 ? `${counts.duplicate} queued or on the wishlist` : '',
    counts.rejected_before > 0 ? `${counts.rejected_before} rejected before` : '',
  ].filter((part) => part !== '');
  if (known.length > 0) return `everything it found is known already: ${known.join(', ')}`;
  if (counts.invalid > 0) return `it proposed ${counts.invalid} candidate${counts.invalid === 1 ? '' : 's'} the server refused as invalid (see the log)`;
  return 'it found nothing new to propose this time';
}
