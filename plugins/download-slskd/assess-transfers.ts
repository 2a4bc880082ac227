import type { Candidate } from './download-record.js';
import type { SlskdTransfer } from './slskd-api.js';
import { parseSlskdTime } from './slskd-time.js';

/** How a candidate's files stand in slskd's transfer list. */
export interface TransferView {
  /** Share of the candidate's bytes transferred, 0–1. */
  progress: number;
  /** Bytes transferred so far (finished files count whole): grows while anything moves. */
  bytes: number;
  /** Files not yet in a final state (including failures slskd will retry on its own). */
  waiting: number;
  /** Unfinished transfers, for cancelling a stalled candidate. */
  unfinished: SlskdTransfer[];
  /** Files slskd does not list at all. */
  missing: string[];
  failed: { filename: string; size: number; state: string; exception: string }[];
  /** State → how many files are in it, for log lines and error messages ("11 × Queued, Remotely"). */
  states: Map<string, number>;
}

/**
 * Reads slskd's transfer records for one candidate. The newest record of a file wins (slskd keeps the old ones,
 * marked removed, when a file is enqueued again). `Completed, Succeeded` only says the transfer is done: the
 * caller still checks the disk, because slskd moves the file after setting that state.
 */
export function assessTransfers(candidate: Candidate, transfers: readonly SlskdTransfer[], now: number): TransferView {
  const latest = new Map<string, SlskdTransfer>();
  for (const transfer of transfers) latest.set(transfer.filename, transfer);
  const view: TransferView = { progress: 0, bytes: 0, waiting: 0, unfinished: [], missing: [], failed: [], states: new Map() };
  let total = 0;
  for (const file of candidate.files) {
    total += file.size;
    const transfer = latest.get(file.filename);
    if (!transfer) {
      view.missing.push(file.filename);
      continue;
    }
    view.states.set(transfer.state, (view.states.get(transfer.state) ?? 0) + 1);
    const terminal = transfer.state.startsWith('Completed');
    const succeeded = terminal && transfer.state.includes('Succeeded');
    // slskd 0.26+ retries a failed transfer by itself; the failure is final only when no attempt is pending.
    // Its times come back from SQLite without a `Z`: parseSlskdTime reads them as the UTC they are.
    const nextAttempt = parseSlskdTime(transfer.nextAttemptAt);
    const retryPending = nextAttempt !== undefined && nextAttempt > now;
    view.bytes += succeeded ? file.size : Math.min(transfer.bytesTransferred, file.size);
    if (!terminal) view.unfinished.push(transfer);
    if (!terminal || (!succeeded && retryPending)) view.waiting++;
    else if (!succeeded) view.failed.push({ filename: file.filename, size: file.size, state: transfer.state, exception: transfer.exception ?? '' });
  }
  view.progress = total > 0 ? view.bytes / total : 0;
  return view;
}

/** "11 × Queued, Remotely; 1 × InProgress": what a stalled or failed candidate's files were doing. */
export function describeStates(states: ReadonlyMap<string, number>): string {
  return [...states].map(([state, count]) => `${count} × ${state}`).join('; ') || 'no transfers listed';
}
