import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, statfs, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A small tmpfs of its own (`options` as for mount -o, e.g. `size=256k` or `ro,size=1m`), unmounted and removed
 * after the test: a disk that really fills up or really refuses writes. Needs root, as CI and our machines run
 * (root ignores file permissions, so a read-only mount is the only way to get a dir root cannot write).
 */
export async function mountTmpfs(t: { after(fn: () => Promise<void>): void }, options: string, name = 'disk'): Promise<{ root: string; disk: string }> {
  const root = await mkdtemp(join(tmpdir(), 'crateflow-tmpfs-'));
  const disk = join(root, name);
  await mkdir(disk);
  execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', disk]);
  t.after(async () => {
    execFileSync('umount', ['-l', disk]);
    await rm(root, { recursive: true, force: true });
  });
  return { root, disk };
}

/** Fills `disk` with one file, leaving `spareBytes` free; answers the file's path (remove it to free the space). */
export async function fillDisk(disk: string, spareBytes = 0): Promise<string> {
  const fs = await statfs(disk);
  const filler = join(disk, 'filler');
  await writeFile(filler, Buffer.alloc(Math.max(0, fs.bavail * fs.bsize - spareBytes)));
  return filler;
}
