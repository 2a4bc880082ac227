import { mkdir, readdir, rmdir, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Logger } from '@crateflow/sdk';

/**
 * Chooses the folder for request files being written. A tool watching `requests_dir` (inotify, a poll of `*.json`,
 * a person) must only ever see whole request files there, so the temp file is written outside it, in
 * `<parent>/.<requests_dir name>.crateflow-tmp`, and renamed in. A rename is atomic only within one filesystem, so
 * that folder is used only when it is on the same device; when requests_dir is a mount point of its own (a container
 * volume) or its parent is not writable, a hidden subfolder `requests_dir/.crateflow-tmp` is used instead: still
 * one filesystem, and a folder, never a `*.json` file, in the listing. Left-over temp files (a stop between write
 * and rename) are removed: their requests were never acknowledged and are made again.
 */
export async function prepareRequestTempDir(requestsDir: string, log: Logger): Promise<string> {
  await mkdir(requestsDir, { recursive: true });
  const beside = join(dirname(requestsDir), `.${basename(requestsDir)}.crateflow-tmp`);
  const dir = (await besideUsable(requestsDir, beside, log)) ? beside : join(requestsDir, '.crateflow-tmp');
  await mkdir(dir, { recursive: true });
  for (const name of await readdir(dir)) {
    if (name.endsWith('.tmp')) await unlink(join(dir, name));
  }
  return dir;
}

async function besideUsable(requestsDir: string, beside: string, log: Logger): Promise<boolean> {
  try {
    await mkdir(beside, { recursive: true });
  } catch (err: unknown) {
    // A read-only or foreign parent folder is a normal setup (requests_dir mounted alone): use the fallback.
    log.info({ requests_dir: requestsDir, temp_dir: beside, err: err instanceof Error ? err.message : String(err) }, 'cannot create the request temp folder beside requests_dir; writing temp files in a hidden subfolder of it');
    return false;
  }
  const [dirStat, besideStat] = await Promise.all([stat(requestsDir), stat(beside)]);
  if (dirStat.dev === besideStat.dev) return true;
  await rmdir(beside);
  log.info({ requests_dir: requestsDir, temp_dir: beside }, 'requests_dir is on another filesystem than its parent folder; writing temp files in a hidden subfolder of it, so the rename stays atomic');
  return false;
}
