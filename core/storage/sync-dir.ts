import { open } from 'node:fs/promises';

/**
 * Flushes a directory's entries to disk. A rename or a newly created file is durable only once its directory is
 * synced: after a power cut or kill -9 of the machine (not just the process), the file system may otherwise bring
 * back the old name, or no file at all.
 */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
