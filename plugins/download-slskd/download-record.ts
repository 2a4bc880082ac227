/**
 * What the plugin keeps in its storage for one download, under `download/<ref>`, so that a restart of
 * Crateflow or of slskd resumes where it was. Type aliases (not interfaces) and `null` for "none" keep the
 * record a plain JSON value.
 */

export type CandidateFile = { filename: string; size: number };

/** A remote folder worth downloading: one user's directory, the files to fetch, and how good it looked. */
export type Candidate = {
  username: string;
  directory: string;
  format: string;
  score: number;
  files: CandidateFile[];
  /** The discs of a multi-disc album in sibling remote folders; each lands in its own subfolder of the download. */
  multi_disc?: boolean;
};

export type Outcome = {
  state: 'completed' | 'failed';
  download_path: string | null;
  error: string | null;
  retry_after_ms: number | null;
};

export type DownloadRecord = {
  /** `search`: finding candidates; `download`: fetching candidates[candidate]; `done`: outcome is final. */
  phase: 'search' | 'download' | 'done';
  /** Which query template the current (or next) search uses. */
  template: number;
  search_id: string | null;
  /** When the search POST was sent (plugin clock). */
  search_started_at: number | null;
  /** When slskd was first seen running the search (not waiting for one of its 2 slots); max_wait_ms counts from here. */
  search_running_at: number | null;
  /** When a completed search was first seen without its responses (slskd's completion race). */
  responses_pending_at: number | null;
  candidates: Candidate[];
  candidate: number;
  /** Whether the current candidate's files were handed to slskd. */
  enqueued: boolean;
  /** The slskd 0.26+ batch `options.destination` of the current candidate; null when enqueued the pre-0.26 way. */
  destination: string | null;
  /** Absolute local folder the current candidate's files land in (decided when it is enqueued). */
  folder: string | null;
  /** Bytes transferred plus files verified on disk at the last poll that saw them grow; the stall check compares it. */
  progress_mark: number;
  /** When progress_mark last grew (or the candidate was enqueued), plugin clock. */
  progress_at: number | null;
  /** Polls in a row that found none of the enqueued files in slskd's transfer list. */
  missing_polls: number;
  /** Files of the current candidate that failed once and were enqueued again. */
  retried: string[];
  /** Users that failed this download; never asked again for it. */
  failed_users: string[];
  /** One line per failed candidate, for the final error message. */
  notes: string[];
  outcome: Outcome | null;
};

export const recordKey = (ref: string): string => `download/${ref}`;

export function newRecord(): DownloadRecord {
  return {
    phase: 'search',
    template: 0,
    search_id: null,
    search_started_at: null,
    search_running_at: null,
    responses_pending_at: null,
    candidates: [],
    candidate: 0,
    enqueued: false,
    destination: null,
    folder: null,
    progress_mark: 0,
    progress_at: null,
    missing_polls: 0,
    retried: [],
    failed_users: [],
    notes: [],
    outcome: null,
  };
}

/** Applies a typed partial change to a record (Object.assign alone would accept any keys). */
export function patch(record: DownloadRecord, changes: Partial<DownloadRecord>): void {
  Object.assign(record, changes);
}
