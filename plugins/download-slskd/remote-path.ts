/**
 * A peer's remote path, split the way slskd splits it. Most peers are Windows clients and send `\`, but
 * non-Windows clients send `/`; slskd guesses the separator per path and splits on both (slskd's
 * `src/slskd/Common/FileSafety.cs`, `SanitizePath` splits on '/' and '\\'). Splitting on `\` alone would make
 * a whole `/` path one "file name" and put every such file in one folder called "".
 *
 * @example
 * remoteSegments('@@abc\\Music\\Low/Double Negative/01 - Quorum.flac') // ['@@abc', 'Music', 'Low', 'Double Negative', '01 - Quorum.flac']
 */
export function remoteSegments(remotePath: string): string[] {
  return remotePath.split(/[\\/]/).filter((segment) => segment !== '');
}

/** The remote file name: the text after the last separator of either kind. */
export function remoteBaseName(remotePath: string): string {
  return remotePath.slice(lastSeparator(remotePath) + 1);
}

/** The remote directory a file is in, exactly as the peer wrote it (the key slskd groups transfers by). */
export function remoteDirectory(remotePath: string): string {
  return remotePath.slice(0, Math.max(0, lastSeparator(remotePath)));
}

/** The last folder name of a remote directory, or '' for a file at a share's root. */
export function remoteFolderName(directory: string): string {
  return remoteSegments(directory).at(-1) ?? '';
}

function lastSeparator(remotePath: string): number {
  return Math.max(remotePath.lastIndexOf('\\'), remotePath.lastIndexOf('/'));
}
