/**
 * What the fake slskd's Soulseek network "contains": peers, their shared files, and how each peer behaves
 * when asked for a download.
 */
export type FakeSlskdPeerBehaviour =
  /** Every transfer succeeds. */
  | 'ok'
  /** The peer answered searches earlier but is unreachable now: enqueue answers 500 with a string body. */
  | 'offline'
  /** The peer refuses every file: transfers end `Completed, Rejected`. */
  | 'reject'
  /** Some files fail mid-transfer: `Completed, Errored` with an `exception` (see `FakeSlskdFile.fails`). */
  | 'partial'
  /** The peer accepts the files into its upload queue and never starts them: `Queued, Remotely` for ever. */
  | 'queued-forever'
  /** The transfer starts and no byte ever arrives: `InProgress` at 0 % for ever. */
  | 'stuck-at-zero';

export interface FakeSlskdFile {
  /** Full remote path, usually with backslashes (`@@abcde\\Music\\Artist\\Album (2001)\\01 - Song.flac`), `/` from non-Windows peers. */
  readonly filename: string;
  readonly size: number;
  /** Defaults to the text after the last dot of `filename`; may be `''` as with real peers. */
  readonly extension?: string;
  readonly bitRate?: number;
  readonly bitDepth?: number;
  readonly sampleRate?: number;
  /** Seconds. */
  readonly length?: number;
  readonly isVariableBitRate?: boolean;
  /** For a `partial` peer: this file errors. When no file of the peer sets it, every second enqueued file errors. */
  readonly fails?: boolean;
}

export interface FakeSlskdPeer {
  readonly username: string;
  readonly hasFreeUploadSlot?: boolean;
  readonly queueLength?: number;
  /** Bytes per second as the peer reports it. */
  readonly uploadSpeed?: number;
  /** An offline peer never answers searches (default true). */
  readonly online?: boolean;
  readonly behaviour?: FakeSlskdPeerBehaviour;
  readonly files: readonly FakeSlskdFile[];
}

/** The subset of the POST /searches body that decides which responses a search collects. */
export interface SearchFilters {
  readonly filterResponses: boolean;
  readonly minimumResponseFileCount: number;
  readonly minimumPeerUploadSpeed: number;
  readonly maximumPeerQueueLength: number;
}

/** Optional attributes are `undefined` when the peer did not report them; JSON.stringify then leaves them out. */
export interface SearchResponseFile {
  readonly filename: string;
  readonly size: number;
  readonly code: number;
  readonly extension: string;
  readonly bitRate?: number | undefined;
  readonly bitDepth?: number | undefined;
  readonly sampleRate?: number | undefined;
  readonly length?: number | undefined;
  readonly isVariableBitRate?: boolean | undefined;
  readonly isLocked: boolean;
}

export interface SearchResponse {
  readonly username: string;
  readonly token: number;
  readonly fileCount: number;
  readonly lockedFileCount: number;
  readonly hasFreeUploadSlot: boolean;
  readonly queueLength: number;
  readonly uploadSpeed: number;
  readonly files: readonly SearchResponseFile[];
  readonly lockedFiles: readonly SearchResponseFile[];
}

/**
 * The responses a search for `searchText` collects: a file matches when every whitespace-separated term occurs,
 * case-insensitively, somewhere in its remote path. Peers without matches, or offline, do not respond.
 */
export function matchCatalogue(
  peers: readonly FakeSlskdPeer[],
  searchText: string,
  token: number,
  filters: SearchFilters,
): SearchResponse[] {
  const terms = searchText.toLowerCase().split(/\s+/).filter((term) => term.length > 0);
  const responses: SearchResponse[] = [];
  for (const peer of peers) {
    if (peer.online === false) continue;
    const files = peer.files
      .filter((file) => {
        const path = file.filename.toLowerCase();
        return terms.every((term) => path.includes(term));
      })
      .map(toResponseFile);
    const response: SearchResponse = {
      username: peer.username,
      token,
      fileCount: files.length,
      lockedFileCount: 0,
      hasFreeUploadSlot: peer.hasFreeUploadSlot ?? true,
      queueLength: peer.queueLength ?? 0,
      uploadSpeed: peer.uploadSpeed ?? 1_048_576,
      files,
      lockedFiles: [],
    };
    if (files.length > 0 && passesFilters(response, filters)) responses.push(response);
  }
  return responses;
}

function passesFilters(response: SearchResponse, filters: SearchFilters): boolean {
  if (!filters.filterResponses) return true;
  return (
    response.fileCount >= filters.minimumResponseFileCount &&
    response.uploadSpeed >= filters.minimumPeerUploadSpeed &&
    response.queueLength <= filters.maximumPeerQueueLength
  );
}

function toResponseFile(file: FakeSlskdFile): SearchResponseFile {
  // Non-Windows peers send `/` separators (slskd-api.md §4), so the name is after the last separator of either kind.
  const name = file.filename.slice(Math.max(file.filename.lastIndexOf('\\'), file.filename.lastIndexOf('/')) + 1);
  const dot = name.lastIndexOf('.');
  return {
    filename: file.filename,
    size: file.size,
    code: 1,
    extension: file.extension ?? (dot > 0 ? name.slice(dot + 1) : ''),
    bitRate: file.bitRate,
    bitDepth: file.bitDepth,
    sampleRate: file.sampleRate,
    length: file.length,
    isVariableBitRate: file.isVariableBitRate,
    isLocked: false,
  };
}
