import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Total size of the files under `dir`, in bytes. Benches measure the store through this alone, so the figure
 * stays valid whatever files the store keeps (snapshots, change logs) and whatever they are called.
 */
export async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await directoryBytes(path);
    else if (entry.isFile()) total += (await stat(path)).size;
  }
  return total;
}

/**
 * The size of `dir` once it has not changed for `quietMs` (at most `timeoutMs`): the service's own background
 * work at start (a download tick) must not be counted against the operations being measured.
 */
export async function settledDirectoryBytes(dir: string, quietMs = 300, timeoutMs = 10_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  let last = await directoryBytes(dir);
  while (performance.now() < deadline) {
    await sleep(quietMs);
    const now = await directoryBytes(dir);
    if (now === last) return now;
    last = now;
  }
  return last;
}
