import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The node flags `npm start` runs the service with (package.json's `start` script, e.g. `--max-semi-space-size=2`),
 * so the benches measure and the container recipe runs the service exactly as users start it.
 */
export async function startScriptNodeFlags(): Promise<string[]> {
  const manifest: unknown = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
  const scripts = manifest && typeof manifest === 'object' && 'scripts' in manifest ? manifest.scripts : undefined;
  const start = scripts && typeof scripts === 'object' && 'start' in scripts ? scripts.start : undefined;
  if (typeof start !== 'string') throw new Error('package.json has no start script');
  const [command, ...words] = start.split(/\s+/);
  if (command !== 'node') throw new Error(`the start script does not run node: ${start}`);
  const flags: string[] = [];
  for (const word of words) {
    if (!word.startsWith('--')) break;
    flags.push(word);
  }
  return flags;
}
