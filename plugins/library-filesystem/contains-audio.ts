import { extname, join } from 'node:path';
import { visibleEntries } from './visible-entries.js';

/** Whether `dir` holds an audio file, directly or up to `depth` folders down (disc folders such as CD1). */
export async function containsAudio(dir: string, extensions: ReadonlySet<string>, depth: number): Promise<boolean> {
  const entries = await visibleEntries(dir);
  if (entries.some((e) => e.isFile && extensions.has(extname(e.name).slice(1).toLowerCase()))) return true;
  if (depth <= 0) return false;
  for (const sub of entries) {
    if (sub.isDirectory && (await containsAudio(join(dir, sub.name), extensions, depth - 1))) return true;
  }
  return false;
}
