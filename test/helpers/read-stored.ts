import { join } from 'node:path';
import { JsonDocument } from '../../core/storage/json-document.js';

/** A document of a data dir as it stands on disk (snapshot + change log), read without touching any file. */
export async function readStored(dataDir: string, name: string): Promise<Record<string, unknown>> {
  const data = await JsonDocument.peek(join(dataDir, `${name}.json`));
  if (!data || typeof data !== 'object') throw new Error(`${name}.json holds no object`);
  return { ...data };
}

/** The `entries` of a plugin's storage document, as on disk. */
export async function readPluginEntries(dataDir: string, plugin: string): Promise<Record<string, unknown>> {
  const doc = await readStored(dataDir, `plugin-${plugin}`);
  const entries = doc.entries;
  if (!entries || typeof entries !== 'object') throw new Error(`plugin-${plugin}.json has no entries object`);
  return { ...entries };
}
