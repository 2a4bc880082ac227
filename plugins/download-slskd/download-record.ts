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
  search_started_at: number | null;
  candidates: Candidate[];
  candidate: number;
  /** Whether the current candidate's files were handed to slskd. */
  enqueued: boolean;
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
    candidates: [],
    candidate: 0,
    enqueued: false,
    missing_polls: 0,
    retried: [],
    failed_users: [],
    notes: [],
    outcome: null,
  };
}
